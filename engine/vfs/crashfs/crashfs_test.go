package crashfs

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func newFS(t *testing.T, seed uint64) *FS {
	t.Helper()
	s, err := New(t.TempDir(), seed)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func image(t *testing.T, s *FS) string {
	t.Helper()
	s.Crash()
	dst := filepath.Join(t.TempDir(), "image")
	if err := s.WriteImage(dst); err != nil {
		t.Fatal(err)
	}
	return dst
}

func TestSyncedSurvives(t *testing.T) {
	for seed := range uint64(50) {
		s := newFS(t, seed)
		p := filepath.Join(s.Root(), "log")
		f, err := s.OpenFile(p, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close() // Windows removes no open file
		f.Write([]byte("synced "))
		f.Sync()
		s.SyncDir(s.Root())
		f.Write(bytes.Repeat([]byte("x"), 10000))
		got, err := os.ReadFile(filepath.Join(image(t, s), "log"))
		if err != nil {
			t.Fatalf("seed %d: a synced file in a synced directory is gone: %v", seed, err)
		}
		if !bytes.HasPrefix(got, []byte("synced ")) || len(got) > 10007 {
			t.Fatalf("seed %d: the file holds %q...", seed, got[:min(len(got), 20)])
		}
		for i, c := range got[7:] {
			if c != 'x' && c != 0 {
				t.Fatalf("seed %d: byte %d is %q", seed, 7+i, c)
			}
			if c == 0 && bytes.IndexByte(got[7+i:], 'x') >= 0 {
				t.Fatalf("seed %d: a hole in the middle of the appended bytes", seed)
			}
		}
		if _, err := f.Write([]byte("after")); !errors.Is(err, ErrCrashed) {
			t.Errorf("a write after the crash = %v", err)
		}
	}
}

func TestUnsyncedEntries(t *testing.T) {
	kept, lost := 0, 0
	for seed := range uint64(50) {
		s := newFS(t, seed)
		f, err := s.CreateTemp(s.Root(), "tmp-*")
		if err != nil {
			t.Fatal(err)
		}
		f.Write([]byte("data"))
		f.Sync()
		f.Close()
		if err := s.Rename(f.Name(), filepath.Join(s.Root(), "final")); err != nil {
			t.Fatal(err)
		}
		img := image(t, s)
		entries, _ := os.ReadDir(img)
		switch {
		case len(entries) == 0:
			lost++
		case len(entries) == 1:
			kept++
			if b, _ := os.ReadFile(filepath.Join(img, entries[0].Name())); string(b) != "data" {
				t.Fatalf("seed %d: %s holds %q", seed, entries[0].Name(), b)
			}
		default:
			t.Fatalf("seed %d: %v", seed, entries)
		}
	}
	if kept == 0 || lost == 0 {
		t.Errorf("an entry never synced was kept %d times and lost %d times in 50; want some of each", kept, lost)
	}

	s := newFS(t, 1)
	if err := s.Mkdir(filepath.Join(s.Root(), "d"), 0o700); err != nil {
		t.Fatal(err)
	}
	s.SyncDir(s.Root())
	f, err := s.OpenFile(filepath.Join(s.Root(), "d", "f"), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close() // Windows removes no open file
	f.Write([]byte("data"))
	f.Sync()
	s.SyncDir(filepath.Join(s.Root(), "d"))
	if b, err := os.ReadFile(filepath.Join(image(t, s), "d", "f")); err != nil || string(b) != "data" {
		t.Errorf("a synced file in synced directories = %q, %v", b, err)
	}
}

func TestUntrackedCopied(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "before"), []byte("was there"), 0o600)
	s, err := New(root, 1)
	if err != nil {
		t.Fatal(err)
	}
	f, err := s.OpenFile(filepath.Join(root, "before"), os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close() // Windows removes no open file
	f.Write([]byte(" and more"))
	s.Crash()
	os.WriteFile(filepath.Join(root, "mirror.db"), []byte("sqlite"), 0o600)
	dst := filepath.Join(t.TempDir(), "image")
	if err := s.WriteImage(dst); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dst, "mirror.db")); string(b) != "sqlite" {
		t.Errorf("untracked file = %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(dst, "before")); !bytes.HasPrefix(b, []byte("was there")) {
		t.Errorf("a file there before = %q", b)
	}
	if _, err := s.OpenFile(filepath.Join(root, "x"), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600); !errors.Is(err, ErrCrashed) {
		t.Errorf("create after the crash = %v", err)
	}
	if _, err := s.OpenFile("/etc/passwd", os.O_RDONLY, 0); err == nil {
		t.Errorf("a file outside the root opened")
	}
}

func TestCrashAt(t *testing.T) {
	s := newFS(t, 1)
	s.CrashAt(3)
	f, err := s.OpenFile(filepath.Join(s.Root(), "f"), os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600) // 1
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()                                 // Windows removes no open file
	if _, err := f.Write([]byte("a")); err != nil { // 2
		t.Fatal(err)
	}
	if err := f.Sync(); !errors.Is(err, ErrCrashed) { // 3
		t.Fatalf("the third operation = %v, want ErrCrashed", err)
	}
	if !s.Crashed() || s.Ops() != 3 {
		t.Errorf("Crashed %v, Ops %d", s.Crashed(), s.Ops())
	}
}

func TestSnapshotAt(t *testing.T) {
	s := newFS(t, 3)
	s.SnapshotAt(3, 5)
	f, _ := s.OpenFile(filepath.Join(s.Root(), "log"), os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600) // 1
	defer f.Close()                                                                              // Windows removes no open file
	s.SyncDir(s.Root())                                                                          // 2
	f.Write([]byte("one "))                                                                      // 3: before it
	f.Sync()                                                                                     // 4
	f.Write([]byte("two"))                                                                       // 5: before it
	f.Sync()
	snaps := s.Snapshots()
	if len(snaps) != 2 || snaps[0].Op != 3 || snaps[1].Op != 5 {
		t.Fatalf("snapshots %v", snaps)
	}
	for i, want := range []string{"", "one "} {
		dst := filepath.Join(t.TempDir(), "snap")
		if err := snaps[i].WriteTo(dst); err != nil {
			t.Fatal(err)
		}
		if b, err := os.ReadFile(filepath.Join(dst, "log")); err != nil || string(b) != want {
			t.Errorf("snapshot %d holds %q, %v; want %q", i, b, err, want)
		}
	}
	if s.Crashed() {
		t.Error("a snapshot turned the power off")
	}
}
