// Package authtest is the token store's concurrency race, shared by the
// test that runs it in separate processes (cmd/spark-engine's `token add`
// and `token revoke`) and the one that runs it in separate Stores of one
// process (engine/auth). It is for tests; the engine does not link it.
package authtest

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/sparkfamily/spark/engine/auth"
)

// Victim is the token Race revokes while the adds run.
const Victim = "victim"

// Name is the name of Race's i-th add.
func Name(i int) string { return fmt.Sprintf("client-%02d", i) }

// Race runs n adds, each on its own goroutine, and halfway through starts
// a revoke of Victim beside them. add(i) adds the token named Name(i) and
// returns what it printed; revoke revokes Victim. Race returns the tokens
// by i and every error, joined: the goroutines report nothing themselves,
// so the test's own goroutine does.
func Race(n int, add func(i int) (string, error), revoke func() error) ([]string, error) {
	tokens := make([]string, n)
	errs := make([]error, n+1)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			tok, err := add(i)
			if err != nil {
				err = fmt.Errorf("add %d: %w", i, err)
			}
			tokens[i], errs[i] = tok, err
		})
		if i == n/2 {
			wg.Go(func() {
				if err := revoke(); err != nil {
					errs[n] = fmt.Errorf("revoke: %w", err)
				}
			})
		}
	}
	wg.Wait()
	return tokens, errors.Join(errs...)
}

// Check reports on tb what a Race of len(tokens) adds left wrong in s: a
// count other than one token per add, a printed token that does not check
// under its name, or the revoked Victim back.
func Check(tb testing.TB, s *auth.Store, tokens []string) {
	tb.Helper()
	list, err := s.List()
	if err != nil {
		tb.Fatal(err)
	}
	if len(list) != len(tokens) {
		tb.Errorf("the store holds %d tokens after %d adds and a revoke, want %d: %v", len(list), len(tokens), len(tokens), list)
	}
	for i, tok := range tokens {
		if name, ok := s.Check(tok); !ok || name != Name(i) {
			tb.Errorf("token %d printed by add does not check: %q %v", i, name, ok)
		}
	}
	for _, tk := range list {
		if tk.Name == Victim {
			tb.Errorf("the revoked token came back")
		}
	}
}
