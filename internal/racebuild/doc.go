// Package racebuild says whether the binary was built with the race
// detector, which slows memory-heavy work five- to tenfold: tests use it to
// draw fewer photos or capture fewer moments under it, or to leave a test
// that measures time or memory, or that runs no goroutines of its own, to
// the run without it (scripts/test.sh's resource step, and Wine's).
package racebuild

import "testing"

// Heavy skips t in a race build: t measures time or memory, which the race
// detector distorts, or only spends time under it, finding nothing. why
// says what t does; scripts/test.sh runs it without the race detector.
func Heavy(t testing.TB, why string) {
	t.Helper()
	if Enabled {
		t.Skip(why + ": run without the race detector (scripts/test.sh's resource step)")
	}
}
