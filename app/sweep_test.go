package app

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/sparkfamily/spark/internal/dirlock"
	"github.com/sparkfamily/spark/outbox"
)

// TestStartup_SweepsTempFiles: the temp files that writes of settings.json
// and engine-address cut short by a kill left in the data folder are gone
// after the next start, which holds the folder (the outbox's lock), and
// settings.json reads as before. Names that only look alike are kept.
func TestStartup_SweepsTempFiles(t *testing.T) {
	dir := t.TempDir()
	a, _ := startApp(t, dir, nil)
	if st, err := a.Settings.Status(); err != nil || !st.Ready {
		t.Fatalf("Status() = %+v, %v; want ready", st, err)
	}
	a.Shutdown()
	before, err := os.ReadFile(filepath.Join(dir, settingsFile))
	if err != nil {
		t.Fatal(err)
	}
	leftovers := []string{".settings.json.tmp12345", ".settings.json.tmp7", ".engine-address.tmp3456789012"}
	kept := []string{".settings.json.tmp", ".settings.json.tmp12345.bak", "settings.json.tmp1", ".settings.tmp1", ".tiles.tmp1"}
	plantFiles(t, dir, append(leftovers, kept...)...)

	a2, _ := startApp(t, dir, nil)
	if st, err := a2.Settings.Status(); err != nil || !st.Ready {
		t.Fatalf("Status() after the restart = %+v, %v; want ready", st, err)
	}
	for _, f := range leftovers {
		if _, err := os.Stat(filepath.Join(dir, f)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s is still there after Startup (%v); want it removed", f, err)
		}
	}
	for _, f := range kept {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("Startup removed %s (%v); want it kept", f, err)
		}
	}
	if after, err := os.ReadFile(filepath.Join(dir, settingsFile)); err != nil || string(after) != string(before) {
		t.Errorf("settings.json holds %q (%v) after the restart; want %q", after, err, before)
	}
	if _, err := os.Stat(filepath.Join(dir, "engine-address")); err != nil {
		t.Errorf("engine-address: %v; want the running engine's address", err)
	}
}

// TestStartup_KeepsTempFilesOfAnotherSpark: while another Spark holds the
// data folder (its outbox's lock), it may be writing settings.json, so a
// Spark that cannot start removes nothing.
func TestStartup_KeepsTempFilesOfAnotherSpark(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "outbox"), 0o700); err != nil {
		t.Fatal(err)
	}
	l, err := dirlock.TryLock(filepath.Join(dir, "outbox"), outbox.LockFile, "another Spark")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	plantFiles(t, dir, ".settings.json.tmp12345", ".engine-address.tmp1")

	a, _ := startApp(t, dir, nil)
	if st, _ := a.Settings.Status(); st.Problem == nil {
		t.Fatalf("Status() = %+v; want a problem: the folder is in use", st)
	}
	for _, f := range []string{".settings.json.tmp12345", ".engine-address.tmp1"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("a Spark that could not take the folder removed %s (%v)", f, err)
		}
	}
}

// plantFiles writes small files named names in dir, as a write cut short
// leaves them.
func plantFiles(tb testing.TB, dir string, names ...string) {
	tb.Helper()
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(`{"engi`), 0o600); err != nil {
			tb.Fatal(err)
		}
	}
}
