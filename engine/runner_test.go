package engine

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sparkfamily/spark/engine/pippa"
)

// scriptedSeat answers Read from a script of errors, then with "ok", and
// notes the (fake) time of each call.
type scriptedSeat struct {
	errs  []error
	calls []time.Time
}

func (s *scriptedSeat) Name() string { return "scripted" }

func (s *scriptedSeat) Read(ctx context.Context, req pippa.Request) (string, error) {
	s.calls = append(s.calls, time.Now())
	if n := len(s.calls); n <= len(s.errs) {
		return "", s.errs[n-1]
	}
	return "ok", nil
}

// gaps are the waits between the seat's calls.
func (s *scriptedSeat) gaps() []time.Duration {
	var out []time.Duration
	for i := 1; i < len(s.calls); i++ {
		out = append(out, s.calls[i].Sub(s.calls[i-1]))
	}
	return out
}

func testRunner(attempts int, backoff time.Duration, rnd float64) *runner {
	e := &Engine{cfg: Config{RetryAttempts: attempts, RetryBackoff: backoff}, logger: quiet}
	return &runner{e: e, rand: func() float64 { return rnd }}
}

// TestRunner_AskBacksOff checks the turn runner's waits on a fake clock:
// full jitter over a window that doubles from RetryBackoff up to
// maxRetryBackoff, and never less than the seat's Retry-After.
func TestRunner_AskBacksOff(t *testing.T) {
	busy := &pippa.HTTPError{Seat: "scripted", Status: 503, Message: "busy"}
	slowDown := &pippa.HTTPError{Seat: "scripted", Status: 429, Message: "slow down", RetryAfter: 20 * time.Second}
	tooLong := &pippa.HTTPError{Seat: "scripted", Status: 503, Message: "away", RetryAfter: time.Hour}
	for _, tt := range []struct {
		name string
		errs []error
		rnd  float64
		want []time.Duration
	}{
		// Windows 1s, 2s, 4s, 8s at half of each.
		{"Jitter", []error{busy, busy, busy, busy}, 0.5, []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second}},
		// Full jitter may ask again at once.
		{"JitterZero", []error{busy, busy}, 0, []time.Duration{0, 0}},
		// Retry-After is a floor, not added to the jitter.
		{"RetryAfter", []error{slowDown, busy}, 0.5, []time.Duration{20 * time.Second, time.Second}},
		// A Retry-After past maxRetryAfter holds the worker that long only.
		{"RetryAfterBounded", []error{tooLong}, 0.5, []time.Duration{maxRetryAfter}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				seat := &scriptedSeat{errs: tt.errs}
				r := testRunner(10, time.Second, tt.rnd)
				text, err := r.ask(context.Background(), seatRef{seat: seat}, pippa.Request{})
				if err != nil || text != "ok" {
					t.Fatalf("ask = %q, %v; want ok", text, err)
				}
				got := seat.gaps()
				if len(got) != len(tt.want) {
					t.Fatalf("waits %v, want %v", got, tt.want)
				}
				for i := range got {
					if got[i] != tt.want[i] {
						t.Errorf("wait %d = %s, want %s (all: %v)", i+1, got[i], tt.want[i], got)
					}
				}
			})
		})
	}
}

// TestRunner_AskCapsAndGivesUp checks that the window stops doubling at
// maxRetryBackoff and that the runner gives up after RetryAttempts.
func TestRunner_AskCapsAndGivesUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		busy := &pippa.HTTPError{Seat: "scripted", Status: 503, Message: "busy"}
		seat := &scriptedSeat{errs: []error{busy, busy, busy, busy, busy, busy, busy, busy}}
		r := testRunner(8, time.Second, 0.999)
		_, err := r.ask(context.Background(), seatRef{seat: seat}, pippa.Request{})
		if err == nil || !strings.Contains(err.Error(), "did not answer after 8 attempts") {
			t.Fatalf("ask = %v, want a failure after 8 attempts", err)
		}
		gaps := seat.gaps()
		if len(gaps) != 7 {
			t.Fatalf("waits %v, want 7", gaps)
		}
		for i, g := range gaps {
			if g >= maxRetryBackoff {
				t.Errorf("wait %d = %s, want below maxRetryBackoff %s", i+1, g, maxRetryBackoff)
			}
		}
		if last := gaps[len(gaps)-1]; last < maxRetryBackoff*99/100 {
			t.Errorf("last wait %s, want the capped window's top, near %s", last, maxRetryBackoff)
		}
	})
}

// TestRunner_AskStops checks that a runner stopping mid-wait returns at
// once with the context's error, and that a permanent error is not retried.
func TestRunner_AskStops(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		slowDown := &pippa.HTTPError{Seat: "scripted", Status: 429, Message: "slow down", RetryAfter: time.Minute}
		seat := &scriptedSeat{errs: []error{slowDown}}
		r := testRunner(5, time.Second, 0.5)
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(10*time.Second, cancel)
		start := time.Now()
		if _, err := r.ask(ctx, seatRef{seat: seat}, pippa.Request{}); !errors.Is(err, context.Canceled) {
			t.Fatalf("ask = %v, want context.Canceled", err)
		}
		if d := time.Since(start); d != 10*time.Second {
			t.Errorf("ask returned after %s, want 10s (when stopped)", d)
		}

		bad := &pippa.HTTPError{Seat: "scripted", Status: 401, Message: "bad key"}
		seat = &scriptedSeat{errs: []error{bad}}
		if _, err := r.ask(context.Background(), seatRef{seat: seat}, pippa.Request{}); err == nil || len(seat.calls) != 1 {
			t.Fatalf("ask after a 401 = %v with %d calls; want one call and an error", err, len(seat.calls))
		}
	})
}
