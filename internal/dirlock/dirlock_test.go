package dirlock

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The cross-process tests re-run this test binary as the holder.
const holderEnv = "DIRLOCK_TEST_HOLD"

func TestMain(m *testing.M) {
	if dir := os.Getenv(holderEnv); dir != "" {
		l, err := TryLock(dir, "test.lock", "holding for a test")
		if err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		fmt.Println("held")
		// Hold until stdin closes (or the process is killed).
		bufio.NewReader(os.Stdin).ReadString('\n')
		l.Release()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestTryLock_SameProcess(t *testing.T) {
	dir := t.TempDir()
	l, err := TryLock(dir, "test.lock", "serve")
	if err != nil {
		t.Fatal(err)
	}
	_, err = TryLock(dir, "test.lock", "rebuild")
	var he *HeldError
	if !errors.As(err, &he) || !errors.Is(err, ErrHeld) {
		t.Fatalf("second TryLock = %v, want a *HeldError", err)
	}
	if he.Holder == nil || he.Holder.PID != os.Getpid() || he.Holder.Purpose != "serve" || he.Dir != dir {
		t.Errorf("HeldError = %+v (holder %+v), want this process holding %s for serve", he, he.Holder, dir)
	}
	for _, want := range []string{dir, fmt.Sprint(os.Getpid()), "serve", "this very process"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q does not mention %q", err, want)
		}
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	if err := l.Release(); err != nil {
		t.Errorf("second Release = %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "test.lock")); len(b) != 0 {
		t.Errorf("the lock file still names the holder after Release: %q", b)
	}
	l2, err := TryLock(dir, "test.lock", "rebuild")
	if err != nil {
		t.Fatalf("TryLock after Release = %v", err)
	}
	l2.Release()
}

func TestTryLock_OtherNames(t *testing.T) {
	dir := t.TempDir()
	a, err := TryLock(dir, "engine.lock", "serve")
	if err != nil {
		t.Fatal(err)
	}
	defer a.Release()
	b, err := TryLock(dir, "tokens.lock", "token add")
	if err != nil {
		t.Fatalf("a lock of another name is independent: %v", err)
	}
	b.Release()
}

func TestTryLock_MissingDir(t *testing.T) {
	_, err := TryLock(filepath.Join(t.TempDir(), "gone"), "test.lock", "x")
	if err == nil || errors.Is(err, ErrHeld) {
		t.Fatalf("TryLock in a missing folder = %v, want an open error", err)
	}
}

func TestWait(t *testing.T) {
	dir := t.TempDir()
	var inside atomic.Int32
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			l, err := Wait(ctx, dir, "test.lock", "writer")
			if err != nil {
				t.Error(err)
				return
			}
			if n := inside.Add(1); n != 1 {
				t.Errorf("%d holders at once", n)
			}
			time.Sleep(2 * time.Millisecond)
			inside.Add(-1)
			l.Release()
		}()
	}
	wg.Wait()

	l, _ := TryLock(dir, "test.lock", "holder")
	defer l.Release()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := Wait(ctx, dir, "test.lock", "waiter"); !errors.Is(err, ErrHeld) || !strings.Contains(err.Error(), "gave up waiting") {
		t.Errorf("Wait on a held lock until a deadline = %v, want the HeldError", err)
	}
}

// holder starts another process holding the lock on dir; closing its stdin
// releases it.
func holder(t *testing.T, dir string) (*exec.Cmd, func()) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), holderEnv+"="+dir)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	if line != "held\n" {
		t.Fatalf("holder said %q", line)
	}
	return cmd, func() { in.Close(); cmd.Wait() }
}

func TestTryLock_OtherProcess(t *testing.T) {
	dir := t.TempDir()
	cmd, release := holder(t, dir)
	_, err := TryLock(dir, "test.lock", "serve")
	var he *HeldError
	if !errors.As(err, &he) || he.Holder == nil || he.Holder.PID != cmd.Process.Pid || he.Holder.Purpose != "holding for a test" {
		t.Fatalf("TryLock beside another holder = %v, want a HeldError naming pid %d", err, cmd.Process.Pid)
	}
	if strings.Contains(err.Error(), "this very process") {
		t.Errorf("message %q says this process holds it", err)
	}
	release()
	l, err := TryLock(dir, "test.lock", "serve")
	if err != nil {
		t.Fatalf("TryLock after the holder released = %v", err)
	}
	l.Release()
}

// TestTryLock_HolderKilled: the operating system releases the lock of a
// process that dies without releasing it.
func TestTryLock_HolderKilled(t *testing.T) {
	dir := t.TempDir()
	cmd, release := holder(t, dir)
	defer release()
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	l, err := TryLock(dir, "test.lock", "serve")
	if err != nil {
		t.Fatalf("TryLock after the holder was killed = %v", err)
	}
	l.Release()
}
