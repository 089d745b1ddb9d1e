package vfs_test

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sparkfamily/spark/engine/vfs"
	"github.com/sparkfamily/spark/engine/vfs/crashfs"
)

// TestMkdirAll: the directories MkdirAll makes survive a power cut (it
// syncs the parent of each), whatever the seed.
func TestMkdirAll(t *testing.T) {
	for seed := range uint64(20) {
		disk, err := crashfs.New(t.TempDir(), seed)
		if err != nil {
			t.Fatal(err)
		}
		deep := filepath.Join(disk.Root(), "media", "sha256", "ab")
		if err := vfs.MkdirAll(disk, deep, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := vfs.MkdirAll(disk, deep, 0o700); err != nil {
			t.Fatalf("MkdirAll of a directory that exists: %v", err)
		}
		disk.Crash()
		img := filepath.Join(t.TempDir(), "after")
		if err := disk.WriteImage(img); err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Stat(filepath.Join(img, "media", "sha256", "ab")); err != nil || !fi.IsDir() {
			t.Fatalf("seed %d: the directories made are gone after a power cut: %v", seed, err)
		}
	}
	f := filepath.Join(t.TempDir(), "file")
	os.WriteFile(f, nil, 0o600)
	if err := vfs.MkdirAll(vfs.OS, f, 0o700); err == nil {
		t.Error("MkdirAll over a file succeeded")
	}
}

// TestOS_ReplaceWhileRead: a rename over a file that a reader of the
// engine's has open succeeds once the reader closes it, as an upload's
// state.json is read by the sweep while a PATCH replaces it. On POSIX the
// rename succeeds at once; Windows refuses it while the file is open and
// answered "Access denied" to os.Rename, so vfs's Rename waits for a short,
// bounded time, as atomicfile's replace does.
func TestOS_ReplaceWhileRead(t *testing.T) {
	dir := t.TempDir()
	state, next := filepath.Join(dir, "state.json"), filepath.Join(dir, "next")
	if err := os.WriteFile(state, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(next, []byte("new"), 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := vfs.OS.OpenFile(state, os.O_RDONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	read := make(chan string, 1)
	go func() {
		time.Sleep(100 * time.Millisecond)
		b, _ := io.ReadAll(r)
		r.Close()
		read <- string(b)
	}()
	if err := vfs.OS.Rename(next, state); err != nil {
		t.Fatalf("replacing a file a reader held for 100 ms: %v", err)
	}
	if got := <-read; got != "old" {
		t.Errorf("the reader read %q; want the contents it opened, \"old\"", got)
	}
	if b, err := os.ReadFile(state); err != nil || string(b) != "new" {
		t.Errorf("after the rename the file holds %q, %v; want \"new\"", b, err)
	}
	if _, err := vfs.OS.OpenFile(filepath.Join(dir, "missing"), os.O_RDONLY, 0); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("opening a missing file: %v, want fs.ErrNotExist", err)
	}
}
