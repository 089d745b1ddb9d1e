package engine

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/internal/dirlock"
)

// TestOpen_OneEnginePerFolder: a second engine (or a rebuild) on the
// folder of an open engine is refused with a message naming the folder and
// the holder; fsck runs beside it; once the first closes, the folder is
// free.
func TestOpen_OneEnginePerFolder(t *testing.T) {
	dir := t.TempDir()
	e := openEngine(t, dir)
	mustCreate(t, e, api.CreateMomentRequest{ClientRequestID: "one"})

	_, err := tryOpen(t, dir)
	if !errors.Is(err, dirlock.ErrHeld) || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), "pid") {
		t.Fatalf("a second Open = %v; want a refusal naming the folder and the holder", err)
	}
	if err := Rebuild(ctxT(t), dir, quiet); !errors.Is(err, dirlock.ErrHeld) {
		t.Fatalf("Rebuild beside an open engine = %v; want a refusal", err)
	}
	var out bytes.Buffer
	if ok, err := Fsck(ctxT(t), dir, &out); !ok || err != nil {
		t.Fatalf("fsck beside an open engine: %v\n%s", err, out.String())
	}
	mustCreate(t, e, api.CreateMomentRequest{ClientRequestID: "two"})
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, LockFile)); len(b) != 0 {
		t.Errorf("the lock file still names a holder after Close: %q", b)
	}
	if err := Rebuild(ctxT(t), dir, quiet); err != nil {
		t.Fatalf("Rebuild after Close: %v", err)
	}
	e = openEngine(t, dir)
	wantOps(t, e, map[string]int{api.OpMomentCreate: 2})
}

// TestOpen_FailedOpenReleasesLock: an Open that fails after taking the
// lock releases it.
func TestOpen_FailedOpenReleasesLock(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, LogFile), []byte("this is not a log, it is a letter\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := tryOpen(t, dir); err == nil {
		t.Fatal("Open on a file that is not a log succeeded")
	}
	l, err := LockDir(dir, "test")
	if err != nil {
		t.Fatalf("the lock is still held after a failed Open: %v", err)
	}
	l.Release()
}

// TestFsckRebuild_ChangeNoLog: fsck and rebuild read a log that ends in a
// write cut short without changing it (fsck notes it); the engine then
// saves it aside and cuts it when it opens.
func TestFsckRebuild_ChangeNoLog(t *testing.T) {
	dir := t.TempDir()
	e := openEngine(t, dir)
	mustCreate(t, e, api.CreateMomentRequest{ClientRequestID: "one"})
	e.Close()
	logPath := filepath.Join(dir, LogFile)
	whole, _ := os.ReadFile(logPath)
	e = openEngine(t, dir)
	mustCreate(t, e, api.CreateMomentRequest{ClientRequestID: "two"})
	e.Close()
	b, _ := os.ReadFile(logPath)
	torn := b[:len(b)-10] // the second create, cut short
	if err := os.WriteFile(logPath, torn, 0o600); err != nil {
		t.Fatal(err)
	}
	removeDB(filepath.Join(dir, MirrorFile)) // its last commit lost too

	var out bytes.Buffer
	if ok, err := Fsck(ctxT(t), dir, &out); !ok || err != nil || !strings.Contains(out.String(), "cut short") {
		t.Fatalf("fsck of a log ending in a write cut short = %v, %v; want ok with a note:\n%s", ok, err, out.String())
	}
	if err := Rebuild(ctxT(t), dir, quiet); err != nil {
		t.Fatal(err)
	}
	if now, _ := os.ReadFile(logPath); !bytes.Equal(now, torn) {
		t.Fatal("fsck or rebuild changed the log")
	}
	if m, _ := filepath.Glob(logPath + ".cut-*"); len(m) != 0 {
		t.Fatalf("fsck or rebuild cut the log: %v", m)
	}
	e = openEngine(t, dir)
	wantOps(t, e, map[string]int{api.OpMomentCreate: 1})
	saved, err := os.ReadFile(logPath + ".cut-" + itoa(len(whole)))
	if err != nil || !bytes.Equal(saved, torn[len(whole):]) {
		t.Fatalf("the cut was not saved beside the log: %v", err)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
