package mirror

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// copyV5 copies the mirror of ../testdata/main-v5 (schema version 5,
// written by main at fe450c2; see ../testdata/README.md) to a temp file.
func copyV5(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "main-v5", "mirror.db"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "mirror.db")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestOpen_MigratesPhraseOwners: a version-5 mirror's kept phrases get the
// members of their phrase.keep ops, read through Options.Members at the
// phrases' seqs; without Members such a mirror is stale and left as it
// was.
func TestOpen_MigratesPhraseOwners(t *testing.T) {
	ctx := context.Background()
	t.Run("ErrStaleWithoutMembers", func(t *testing.T) {
		path := copyV5(t)
		_, err := Open(ctx, path, Options{})
		var se *StaleError
		if !errors.As(err, &se) || se.Have != 5 || se.Want != SchemaVersion {
			t.Fatalf("Open without Members = %v; want a StaleError from version 5", err)
		}
		// Left as it was: with Members, it migrates.
		m, err := Open(ctx, path, Options{Members: func(_ context.Context, seqs []uint64) (map[uint64]string, error) {
			out := map[uint64]string{}
			for _, s := range seqs {
				out[s] = "someone"
			}
			return out, nil
		}})
		if err != nil {
			t.Fatalf("Open with Members after a stale Open: %v", err)
		}
		m.Close()
	})
	t.Run("OK", func(t *testing.T) {
		path := copyV5(t)
		var asked []uint64
		// Who kept the phrases at seqs 4 to 10 in main-v5's log.
		log := map[uint64]string{4: "dad-laptop", 5: "mum", 6: "me", 7: "", 10: "mum"}
		m, err := Open(ctx, path, Options{Members: func(_ context.Context, seqs []uint64) (map[uint64]string, error) {
			asked = seqs
			return log, nil
		}})
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		if diff := cmp.Diff([]uint64{4, 5, 6, 7, 10}, asked); diff != "" {
			t.Errorf("seqs asked (-want +got):\n%s", diff)
		}
		ps, err := m.Phrases(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, p := range ps {
			got[p.ID] = p.Member
		}
		want := map[string]string{"keep:call the bank": "dad-laptop", "keep:school trip money": "mum", "keep:bleed the radiators": "me",
			"keep:kept by the engine itself": "", "keep:the dentist on friday": "mum"}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("phrase owners (-want +got):\n%s", diff)
		}
	})
}
