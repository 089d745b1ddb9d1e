package engine

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sparkfamily/spark/engine/pippa"
	"github.com/sparkfamily/spark/internal/dirlock"
)

// TestOpen_SweepsTempFiles: the temp files that writes of the engine's
// small files cut short by a kill left in the data folder (engine-id.json,
// engine.json, tokens.json, as atomicfile.WriteFile names them) are gone
// after the engine opens again, and the files themselves read as before.
// Names that only look alike are kept.
func TestOpen_SweepsTempFiles(t *testing.T) {
	dir := t.TempDir()
	seats := []pippa.Config{{Name: "brain", URL: "http://127.0.0.1:1/v1", Model: "m"}}
	e := openEngine(t, dir)
	id, err := e.ID()
	if err != nil {
		t.Fatal(err)
	}
	if err := e.SetSeats(ctxT(t), seats); err != nil {
		t.Fatal(err)
	}
	tok, err := e.Tokens().Add("phone", "device")
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}

	leftovers := []string{".engine-id.json.tmp123", ".engine.json.tmp4567", ".tokens.json.tmp89", ".tokens.json.tmp4294967295"}
	kept := []string{".engine-id.json.tmp", ".engine.json.tmp12x", "engine-id.json.tmp5", ".ops.log.tmp3", ".tokens.json.tmp1.bak"}
	plant(t, dir, append(leftovers, kept...)...)

	e = openEngine(t, dir)
	for _, f := range leftovers {
		if _, err := os.Stat(filepath.Join(dir, f)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s is still there after Open (%v); want it removed", f, err)
		}
	}
	for _, f := range kept {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("Open removed %s (%v); want it kept", f, err)
		}
	}
	if got, err := e.ID(); err != nil || got != id {
		t.Errorf("after the sweep the engine id is %q (%v); want %s", got, err, id)
	}
	if diff := cmp.Diff(seats, e.Seats()); diff != "" {
		t.Errorf("after the sweep the seats differ (-want +got):\n%s", diff)
	}
	if name, ok := e.Tokens().Check(tok); !ok || name != "phone" {
		t.Errorf("after the sweep Check = %q, %v; want phone", name, ok)
	}
}

// TestOpen_KeepsTokenTempsWhileChanged: a token command (another process,
// which takes only tokens.lock) may be replacing tokens.json while the
// engine opens; its temp file looks like a leftover, so the engine leaves
// tokens.json's temp files alone then. The engine's own files, which only
// an engine holding engine.lock writes, are swept all the same.
func TestOpen_KeepsTokenTempsWhileChanged(t *testing.T) {
	dir := t.TempDir()
	e := openEngine(t, dir)
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	plant(t, dir, ".tokens.json.tmp42", ".engine-id.json.tmp42")
	l, err := dirlock.TryLock(dir, "tokens.lock", "token add")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	openEngine(t, dir)
	if _, err := os.Stat(filepath.Join(dir, ".tokens.json.tmp42")); err != nil {
		t.Errorf("Open removed tokens.json's temp file while a token command held tokens.lock (%v)", err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".engine-id.json.tmp42")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf(".engine-id.json.tmp42 is still there after Open (%v)", err)
	}
}

// plant writes small files named names in dir, as a write cut short
// leaves them.
func plant(tb testing.TB, dir string, names ...string) {
	tb.Helper()
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(`{"vers`), 0o600); err != nil {
			tb.Fatal(err)
		}
	}
}
