//go:build !windows

package engine

import (
	"bytes"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/auth"
)

// TestFileModes: mirror.db and its WAL used to be created 0644 though they
// hold captions and readings. With no umask at all to help, every file of
// the data folder is 0600 and every folder 0700; files an older engine
// left open to others are closed to them; and a data folder others can
// read is warned about.
func TestFileModes(t *testing.T) {
	old := syscall.Umask(0)
	defer syscall.Umask(old)

	dir := filepath.Join(t.TempDir(), "data")
	e := openEngine(t, dir)
	m := mustCreate(t, e, api.CreateMomentRequest{Kind: api.KindPhoto, Caption: "the gas bill"})
	mustPut(t, e, newULID(), m.ID, api.RoleCopy, smallJPEG(t, 1))
	if _, err := e.Tokens().Add("phone", auth.ScopeDevice); err != nil {
		t.Fatal(err)
	}
	checkModes(t, dir)

	// An older engine's mirror files, open to all, and a data folder open
	// to all.
	e.Close()
	for _, name := range []string{MirrorFile, MirrorFile + "-wal", MirrorFile + "-shm"} {
		if err := os.Chmod(filepath.Join(dir, name), 0o644); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	e = openEngine(t, dir, func(c *Config) { c.Logger = slog.New(slog.NewTextHandler(&logs, nil)) })
	mustCreate(t, e, api.CreateMomentRequest{Kind: api.KindNote})
	if !strings.Contains(logs.String(), "level=WARN") || !strings.Contains(logs.String(), "0755") {
		t.Errorf("no warning about a data folder readable by others; the log:\n%s", logs.String())
	}
	os.Chmod(dir, 0o700)
	checkModes(t, dir)
}

// checkModes checks every file and folder under dir.
func checkModes(t *testing.T, dir string) {
	t.Helper()
	seen := map[string]bool{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		want := fs.FileMode(0o600)
		if d.IsDir() {
			want = 0o700
		}
		if got := fi.Mode().Perm(); got != want {
			t.Errorf("%s has mode %04o, want %04o", p, got, want)
		}
		seen[d.Name()] = true
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{LogFile, MirrorFile, MirrorFile + "-wal", MirrorFile + "-shm", TokensFile, MediaDir} {
		if !seen[name] {
			t.Errorf("%s was not found in %s", name, dir)
		}
	}
}

// TestFileModes_OlderEngineFiles: the log, the media store's folders and
// files, and the other data files an older engine (or a loose umask) left
// open to others are closed to them when the engine opens, with no umask
// to help; the data folder itself is left as it is.
func TestFileModes_OlderEngineFiles(t *testing.T) {
	old := syscall.Umask(0)
	defer syscall.Umask(old)

	dir := filepath.Join(t.TempDir(), "data")
	e := openEngine(t, dir)
	m := mustCreate(t, e, api.CreateMomentRequest{Kind: api.KindPhoto, Caption: "the gas bill"})
	mustPut(t, e, newULID(), m.ID, api.RoleCopy, smallJPEG(t, 1))
	if _, err := e.Tokens().Add("phone", auth.ScopeDevice); err != nil {
		t.Fatal(err)
	}
	e.Close()
	if err := os.WriteFile(filepath.Join(dir, LogFile+".cut-99"), []byte("cut"), 0o644); err != nil {
		t.Fatal(err)
	}
	loosened := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir || strings.HasPrefix(d.Name(), MirrorFile) {
			return err
		}
		mode := fs.FileMode(0o644)
		if d.IsDir() {
			mode = 0o755
		}
		loosened++
		return os.Chmod(p, mode)
	})
	if err != nil {
		t.Fatal(err)
	}
	if loosened < 6 {
		t.Fatalf("only %d files and folders to loosen", loosened)
	}
	e = openEngine(t, dir)
	checkModes(t, dir)
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("the data folder: %v, %v", fi.Mode(), err)
	}
}
