package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/sparkfamily/spark/engine"
	"github.com/sparkfamily/spark/engine/auth"
	"github.com/sparkfamily/spark/engine/auth/authtest"
)

// serveProc is a spark-engine serve child process.
type serveProc struct {
	cmd  *exec.Cmd
	base string
	mu   sync.Mutex
	log  bytes.Buffer
	done chan struct{}
}

// startServe starts `spark-engine serve` on dir and waits until it listens.
// It fails the test if serve exits first, unless mayFail: then it returns
// nil and the output.
func startServe(t *testing.T, dir string) (*serveProc, string) {
	t.Helper()
	cmd := command(t, "serve", "--data", dir, "--listen", "127.0.0.1:0")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &serveProc{cmd: cmd, done: make(chan struct{})}
	addr := make(chan string, 1)
	go func() {
		defer close(s.done)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			s.mu.Lock()
			s.log.WriteString(line + "\n")
			s.mu.Unlock()
			if m := serveAddr.FindStringSubmatch(line); m != nil {
				addr <- "http://" + m[1]
			}
		}
	}()
	select {
	case s.base = <-addr:
	case <-s.done:
		cmd.Wait()
		return nil, s.output()
	case <-time.After(30 * time.Second):
		t.Fatalf("serve did not say where it listens: %s", s.output())
	}
	t.Cleanup(func() { s.stop(t) })
	return s, ""
}

func (s *serveProc) output() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.log.String()
}

// stop sends SIGTERM and waits for a clean exit (on Windows, which has no
// SIGTERM, it kills the process: what was answered is fsync'ed anyway).
func (s *serveProc) stop(t *testing.T) {
	t.Helper()
	if s.cmd.ProcessState != nil {
		return
	}
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		s.cmd.Process.Kill()
		<-s.done
		s.cmd.Wait()
		return
	}
	<-s.done
	if err := s.cmd.Wait(); err != nil {
		t.Errorf("serve after SIGTERM: %v\n%s", err, s.output())
	}
}

// create posts a note and returns the status.
func (s *serveProc) create(token, rid string) (int, error) {
	req, _ := http.NewRequest("POST", s.base+"/v1/moments", strings.NewReader(fmt.Sprintf(`{"client_request_id":%q,"kind":"note","caption":"load"}`, rid)))
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}

func addToken(t *testing.T, dir, name string) string {
	t.Helper()
	out, errOut, code := spark(t, "token", "add", name, "--data", dir)
	if code != 0 {
		t.Fatalf("token add: exit %d: %s", code, errOut)
	}
	return strings.TrimSpace(out)
}

// logRequestIDs opens the engine on dir and returns the client request ids
// of the moment.create ops of its log.
func logRequestIDs(t *testing.T, dir string) map[string]bool {
	t.Helper()
	eng, err := engine.Open(context.Background(), engine.Config{Dir: dir})
	if err != nil {
		t.Fatalf("the engine does not open after the test: %v", err)
	}
	defer eng.Close()
	got := map[string]bool{}
	var after uint64
	for {
		ops, next, err := eng.Ops(context.Background(), after, 1000)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range ops {
			if o.Op == "moment.create" {
				got[o.ClientRequestID] = true
			}
		}
		if next == nil {
			return got
		}
		after = *next
	}
}

// TestServe_TwoOnOneFolder is the first finding: a second serve on
// the folder of a running one must refuse to start, naming the folder and
// the process that holds it, and the first must go on unharmed.
func TestServe_TwoOnOneFolder(t *testing.T) {
	dir := t.TempDir()
	token := addToken(t, dir, "test")
	first, _ := startServe(t, dir)
	if code, err := first.create(token, "one"); err != nil || code != 201 {
		t.Fatalf("create on the first serve: %d, %v", code, err)
	}
	second, out := startServe(t, dir)
	if second != nil {
		code, _ := second.create(token, "two")
		t.Fatalf("a second serve started on the folder of a running one (its create answered %d)", code)
	}
	pid := fmt.Sprint(first.cmd.Process.Pid)
	if !strings.Contains(out, dir) || !strings.Contains(out, pid) {
		t.Errorf("the second serve's message does not name the folder %s and pid %s:\n%s", dir, pid, out)
	}
	if code, err := first.create(token, "three"); err != nil || code != 201 {
		t.Fatalf("create on the first serve after the second tried: %d, %v", code, err)
	}
	first.stop(t)
	if got := logRequestIDs(t, dir); len(got) != 2 || !got["one"] || !got["three"] {
		t.Errorf("the log holds creates %v, want one and three", got)
	}
	// Once the first has stopped, the folder is free again.
	again, out := startServe(t, dir)
	if again == nil {
		t.Fatalf("serve does not start once the first has stopped:\n%s", out)
	}
}

// serveUnderLoad starts serve on a new folder, with a token, and posts
// creates to it from a few clients (loadCreates); stop ends the load and
// returns the request ids answered 201.
func serveUnderLoad(t *testing.T) (dir string, s *serveProc, token string, stop func() []string) {
	dir = t.TempDir()
	token = addToken(t, dir, "test")
	s, _ = startServe(t, dir)
	done := make(chan struct{})
	wait := loadCreates(t, s, token, done)
	return dir, s, token, func() []string {
		close(done)
		return wait()
	}
}

// loadCreates posts creates to s from a few clients until stop is closed, and
// returns the request ids answered 201.
func loadCreates(t *testing.T, s *serveProc, token string, stop <-chan struct{}) func() []string {
	var mu sync.Mutex
	var ok []string
	var wg sync.WaitGroup
	var n atomic.Int64
	for c := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				rid := fmt.Sprintf("load-%d-%d", c, n.Add(1))
				if code, err := s.create(token, rid); err == nil && code == 201 {
					mu.Lock()
					ok = append(ok, rid)
					mu.Unlock()
				}
			}
		}()
	}
	return func() []string {
		wg.Wait()
		return ok
	}
}

// TestRebuild_BesideLiveServe is the second finding: rebuild run
// beside a serve under load must not touch the live engine's files; it is
// refused, and every create answered 201 stays in the log.
func TestRebuild_BesideLiveServe(t *testing.T) {
	dir, s, token, stop := serveUnderLoad(t)
	time.Sleep(300 * time.Millisecond)
	out, errOut, code := spark(t, "rebuild", "--data", dir)
	time.Sleep(200 * time.Millisecond)
	answered := stop()
	if code != 1 || !strings.Contains(errOut, dir) || !strings.Contains(errOut, fmt.Sprint(s.cmd.Process.Pid)) {
		t.Errorf("rebuild beside a live serve: exit %d, want 1 and a message naming the folder and the serve's pid\n%s%s", code, out, errOut)
	}
	if c, err := s.create(token, "after-rebuild"); err != nil || c != 201 {
		t.Fatalf("serve after the rebuild attempt: %d, %v\n%s", c, err, s.output())
	}
	s.stop(t)
	got := logRequestIDs(t, dir)
	for _, rid := range append(answered, "after-rebuild") {
		if !got[rid] {
			t.Errorf("create %s was answered 201 but is not in the log", rid)
		}
	}
	t.Logf("%d creates answered during the rebuild attempt", len(answered))
}

// TestFsck_BesideLiveServe: fsck takes no lock and changes nothing, so it
// can run beside a serve under load; the live engine keeps every answered
// create and fsck finds nothing wrong.
func TestFsck_BesideLiveServe(t *testing.T) {
	dir, s, _, stop := serveUnderLoad(t)
	time.Sleep(200 * time.Millisecond)
	for i := range 2 {
		out, errOut, code := spark(t, "fsck", "--data", dir)
		if code != 0 {
			t.Errorf("fsck %d beside a live serve: exit %d\n%s%s", i, code, out, errOut)
		}
	}
	answered := stop()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "fsck-") {
			t.Errorf("fsck left %s behind", e.Name())
		}
	}
	s.stop(t)
	got := logRequestIDs(t, dir)
	for _, rid := range answered {
		if !got[rid] {
			t.Errorf("create %s was answered 201 but is not in the log", rid)
		}
	}
	if out, errOut, code := spark(t, "fsck", "--data", dir); code != 0 {
		t.Errorf("fsck after serve stopped: exit %d\n%s%s", code, out, errOut)
	}
}

// TestToken_Concurrent is the issue's token finding: 20 concurrent `token
// add` runs must store 20 tokens, each printed token must check, and a
// revoke must stay revoked whatever add runs beside it.
func TestToken_Concurrent(t *testing.T) {
	dir := t.TempDir()
	addToken(t, dir, authtest.Victim)
	run := func(args ...string) (string, error) {
		out, errOut, code, err := runSpark(t, append(args, "--data", dir)...)
		if err == nil && code != 0 {
			err = fmt.Errorf("token %s: exit %d: %s", args[1], code, errOut)
		}
		return strings.TrimSpace(out), err
	}
	tokens, err := authtest.Race(20, func(i int) (string, error) {
		return run("token", "add", authtest.Name(i))
	}, func() error {
		_, err := run("token", "revoke", authtest.Victim)
		return err
	})
	if err != nil {
		t.Error(err)
	}
	store, err := auth.Open(filepath.Join(dir, engine.TokensFile))
	if err != nil {
		t.Fatal(err)
	}
	authtest.Check(t, store, tokens)
}
