package auth_test

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/sparkfamily/spark/engine/auth"
	"github.com/sparkfamily/spark/engine/auth/authtest"
)

// TestStore_ConcurrentWriters: stores opened on one file by separate
// processes (here, separate Stores) must not lose each other's writes: 20
// concurrent adds keep 20 tokens, and a revoke run beside them is not undone
// by an add that read the file before it.
func TestStore_ConcurrentWriters(t *testing.T) {
	for round := range 5 {
		path := filepath.Join(t.TempDir(), "tokens.json")
		s, err := auth.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Add(authtest.Victim, auth.ScopeDevice); err != nil {
			t.Fatal(err)
		}
		tokens, err := authtest.Race(20, func(i int) (string, error) {
			s, err := auth.Open(path)
			if err != nil {
				return "", err
			}
			return s.Add(authtest.Name(i), auth.ScopeDevice)
		}, func() error {
			s, err := auth.Open(path)
			if err != nil {
				return err
			}
			if ok, err := s.Revoke(authtest.Victim); !ok || err != nil {
				return errors.Join(errors.New("the victim was not revoked"), err)
			}
			return nil
		})
		if err != nil {
			t.Errorf("round %d: %v", round, err)
		}
		s, err = auth.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		authtest.Check(t, s, tokens)
		if t.Failed() {
			t.Fatalf("round %d failed", round)
		}
	}
}
