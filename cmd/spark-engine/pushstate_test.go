package main

import (
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
)

// TestPushStateDir: push's checkpoints default to push/ in Spark's data
// folder (datadir, as every other folder of Spark), and those kept by an
// earlier version in the user's cache folder are moved there once.
func TestPushStateDir(t *testing.T) {
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	at := func(dir string) func() (string, error) { return func() (string, error) { return dir, nil } }
	none := func() (string, error) { return "", errors.New("no such folder") }

	t.Run("Fresh", func(t *testing.T) {
		data, cache := t.TempDir(), t.TempDir()
		if got := pushStateDir(at(data), at(cache), quiet); got != filepath.Join(data, "push") {
			t.Errorf("pushStateDir = %q, want push/ in the data folder", got)
		}
	})
	t.Run("MovesTheOldCheckpoints", func(t *testing.T) {
		data, cache := filepath.Join(t.TempDir(), "Spark"), t.TempDir()
		old := filepath.Join(cache, "spark", "push")
		if err := os.MkdirAll(old, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(old, "push-a-to-b.json"), []byte(`{"version":1}`), 0o600); err != nil {
			t.Fatal(err)
		}
		got := pushStateDir(at(data), at(cache), quiet)
		if got != filepath.Join(data, "push") {
			t.Fatalf("pushStateDir = %q, want push/ in the data folder", got)
		}
		if b, err := os.ReadFile(filepath.Join(got, "push-a-to-b.json")); err != nil || string(b) != `{"version":1}` {
			t.Errorf("the checkpoint after the move: %q, %v", b, err)
		}
		if _, err := os.Stat(old); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the old folder is still there: %v", err)
		}
		if again := pushStateDir(at(data), at(cache), quiet); again != got {
			t.Errorf("a second call = %q, want %q", again, got)
		}
	})
	t.Run("NoCacheFolder", func(t *testing.T) {
		data := t.TempDir()
		if got := pushStateDir(at(data), none, quiet); got != filepath.Join(data, "push") {
			t.Errorf("pushStateDir = %q", got)
		}
	})
	t.Run("NoDataFolder", func(t *testing.T) {
		if got := pushStateDir(none, at(t.TempDir()), quiet); got != "" {
			t.Errorf("pushStateDir = %q, want none", got)
		}
	})
}
