// Package poll waits, in tests, for something another goroutine or
// process makes true.
package poll

import (
	"testing"
	"time"
)

// Until checks cond every few milliseconds until it holds, and fails tb
// (from the test's goroutine) if it still does not after timeout.
func Until(tb testing.TB, timeout time.Duration, what string, cond func() bool) {
	tb.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			tb.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
