package app

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/sparkfamily/spark/engine/api"
)

// After a sync that could not reach the family engine, the next waits a
// back-off with jitter whose window starts at syncBusy and doubles up to
// syncIdle, and never less than the engine's Retry-After.
func TestSyncRetry(t *testing.T) {
	offline := errors.New("replica: health check: cannot reach the engine: connection refused")
	busy := func(after time.Duration) error {
		return fmt.Errorf("replica: %w", &api.Error{Status: 503, Code: "unavailable", RetryAfter: after})
	}
	for _, tc := range []struct {
		failures int
		err      error
		rnd      float64
		want     time.Duration
	}{
		{1, offline, 0.5, 1500 * time.Millisecond}, // half of [0, 3s)
		{2, offline, 0.5, 3 * time.Second},         // half of [0, 6s)
		{3, offline, 0.5, 6 * time.Second},
		{4, offline, 0.5, 7500 * time.Millisecond}, // the window stops at syncIdle
		{40, offline, 0.999, 14985 * time.Millisecond},
		{1, offline, 0, 0},
		{1, busy(40 * time.Second), 0.5, 40 * time.Second}, // Retry-After over the window
		{4, busy(time.Second), 0.5, 7500 * time.Millisecond},
	} {
		got := syncRetry(tc.failures, tc.err, func() float64 { return tc.rnd })
		if got != tc.want {
			t.Errorf("syncRetry(%d, %v, rand %g) = %s, want %s", tc.failures, tc.err, tc.rnd, got, tc.want)
		}
	}
}
