package auth

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/sparkfamily/spark/internal/dirlock"
)

// TestStore_SweepTemps: a temp file that a change of the token file cut
// short left (a `token add` killed mid-write) is removed, the token file
// and other names are kept; while another process holds the token file's
// lock (a change in progress, whose temp file looks the same) nothing is
// removed.
func TestStore_SweepTemps(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "tokens.json")
	s := openStore(t, path)
	tok := addToken(t, s, "phone")
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	left := filepath.Join(dir, ".tokens.json.tmp12345")
	kept := []string{".tokens.json.tmp", ".tokens.json.tmp1.bak", "tokens.json.tmp7"}
	plant := func() {
		for _, f := range append([]string{".tokens.json.tmp12345"}, kept...) {
			if err := os.WriteFile(filepath.Join(dir, f), []byte(`{"version":2,"tok`), 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}

	plant()
	held, err := dirlock.TryLock(dir, "tokens.lock", "a token add in another process")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SweepTemps(); err != nil {
		t.Errorf("SweepTemps() while the lock is held = %v; want nil", err)
	}
	if _, err := os.Stat(left); err != nil {
		t.Errorf("SweepTemps removed %s while another process held the lock (%v); want it kept", left, err)
	}
	held.Release()

	if err := s.SweepTemps(); err != nil {
		t.Fatalf("SweepTemps() = %v", err)
	}
	if _, err := os.Stat(left); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("%s is still there after SweepTemps (%v)", left, err)
	}
	for _, f := range kept {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("SweepTemps removed %s (%v); want it kept", f, err)
		}
	}
	if after, err := os.ReadFile(path); err != nil || string(after) != string(before) {
		t.Errorf("the token file changed in the sweep: %q (%v)", after, err)
	}
	if name, ok := openStore(t, path).Check(tok); !ok || name != "phone" {
		t.Errorf("after the sweep Check = %q, %v; want phone", name, ok)
	}
	// The lock is free again: a change still goes through.
	addToken(t, s, "laptop")
}

// TestStore_SweepTempsBesideChanges sweeps over and over while other
// Stores (other processes) add tokens: every add succeeds, since no sweep
// removes the temp file of a change in progress.
func TestStore_SweepTempsBesideChanges(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tokens.json")
	sweeper := openStore(t, path)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	sweeps := 0
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			if err := sweeper.SweepTemps(); err != nil {
				t.Errorf("SweepTemps() = %v", err)
				return
			}
			sweeps++
		}
	})
	const adds = 40
	var addWG sync.WaitGroup
	for i := range adds {
		addWG.Go(func() {
			s, err := Open(path)
			if err == nil {
				_, err = s.Add("client-"+string(rune('A'+i)), ScopeDevice)
			}
			if err != nil {
				t.Errorf("add %d beside the sweeps: %v", i, err)
			}
		})
	}
	addWG.Wait()
	close(stop)
	wg.Wait()
	list, err := openStore(t, path).List()
	if err != nil || len(list) != adds {
		t.Errorf("after %d adds beside %d sweeps the file lists %d tokens (%v)", adds, sweeps, len(list), err)
	}
}
