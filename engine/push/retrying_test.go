package push

import (
	"context"
	"errors"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/internal/retry"
)

// TestRetrying is the push's one retry policy, on a fake clock: what it
// asks again, how long it waits (the back-off, never less than the
// target's Retry-After), and when it gives up.
func TestRetrying(t *testing.T) {
	unavailable := func(after time.Duration) error {
		return &api.Error{Status: 503, Code: "unavailable", Message: "busy", RetryAfter: after}
	}
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	notFound := &api.Error{Status: 404, Code: api.CodeNotFound, Message: "no such moment"}
	local := errors.New("the source's media file is gone")
	// Rand 0.5: the n-th wait is half the window, 100ms·2^(n-1)/2.
	b := retry.Backoff{Base: 100 * time.Millisecond, Cap: time.Second, Rand: func() float64 { return 0.5 }}
	for _, tc := range []struct {
		name    string
		tries   int
		answers []error // one per attempt; past the end, success
		calls   int
		waited  time.Duration
		want    func(error) bool
	}{
		{"passing then success", 0, []error{unavailable(0), refused}, 3, 50*time.Millisecond + 100*time.Millisecond, isNil},
		{"Retry-After over the back-off", 0, []error{unavailable(2 * time.Minute)}, 2, 2 * time.Minute, isNil},
		{"429 with Retry-After", 0, []error{&api.Error{Status: 429, Code: "slow_down", RetryAfter: 30 * time.Second}}, 2, 30 * time.Second, isNil},
		{"gives up after tries", 3, []error{refused, refused, refused, refused}, 3, 50*time.Millisecond + 100*time.Millisecond,
			func(err error) bool { return errors.Is(err, syscall.ECONNREFUSED) }},
		{"refused token at once", 0, []error{&api.Error{Status: 401, Code: "unauthorized"}}, 1, 0,
			func(err error) bool { return errors.Is(err, errBadToken) }},
		{"final word at once", 0, []error{notFound}, 1, 0, func(err error) bool { return errors.Is(err, notFound) }},
		{"local failure at once", 0, []error{local}, 1, 0, func(err error) bool { return errors.Is(err, local) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				p := &pusher{opts: Options{Backoff: b}}
				calls, retries := 0, 0
				start := time.Now()
				err := p.retrying(context.Background(), tc.tries, func(error) { retries++ }, func(context.Context) error {
					calls++
					if calls <= len(tc.answers) {
						return tc.answers[calls-1]
					}
					return nil
				})
				if !tc.want(err) {
					t.Errorf("retrying = %v", err)
				}
				if calls != tc.calls || retries != calls-1 {
					t.Errorf("%d attempts, %d asked again; want %d attempts", calls, retries, tc.calls)
				}
				if d := time.Since(start); d != tc.waited {
					t.Errorf("waited %s, want %s", d, tc.waited)
				}
			})
		})
	}
}

// A push stopped while it waits to ask again ends at once with ctx's error.
func TestRetrying_Stopped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := &pusher{opts: Options{Backoff: retry.Backoff{Base: time.Hour, Rand: func() float64 { return 0.5 }}}}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		start := time.Now()
		err := p.retrying(ctx, 0, nil, func(context.Context) error { return &api.Error{Status: 503, Code: "unavailable"} })
		if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) != time.Minute {
			t.Errorf("retrying = %v after %s, want the deadline after 1m", err, time.Since(start))
		}
	})
}

// Issue 32, item 8: trouble that lasts GiveUpAfter ends the requests to
// an engine with ErrGaveUp, in words that name it and its last answer;
// so does a Retry-After that asks for longer, at once. An attempt that
// moves no byte for StallAfter ends with ErrStalled and is not asked
// again, though a slow one that moves bytes goes on.
func TestRetrying_Bounds(t *testing.T) {
	unavailable := &api.Error{Status: 503, Code: "unavailable", Message: "busy"}
	b := retry.Backoff{Base: 100 * time.Millisecond, Cap: 5 * time.Second, Rand: func() float64 { return 0.5 }}
	lim := limits{peer: "the engine the moments go to (http://target)", stallAfter: time.Minute, giveUpAfter: 10 * time.Minute}
	for _, tc := range []struct {
		name    string
		try     func(ctx context.Context) error
		want    error
		words   []string
		calls   int // 0: any
		between [2]time.Duration
	}{
		{"503 for ever", func(context.Context) error { return unavailable }, ErrGaveUp,
			[]string{"the engine the moments go to (http://target) answered only with trouble for 10m0s", "busy"}, 0,
			[2]time.Duration{10*time.Minute - 5*time.Second, 10 * time.Minute}},
		{"Retry-After past the bound", func(context.Context) error {
			return &api.Error{Status: 503, Code: "unavailable", Message: "back later", RetryAfter: time.Hour}
		}, ErrGaveUp, []string{"asks to be left alone for 1h0m0s, longer than a push waits (10m0s", "back later"}, 1, [2]time.Duration{0, 0}},
		{"stalled", func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() }, ErrStalled,
			[]string{"(http://target) moved no byte for 1m0s"}, 1, [2]time.Duration{time.Minute, time.Minute + time.Minute/8}},
		{"slow but moving", func(ctx context.Context) error {
			for range 5 {
				time.Sleep(50 * time.Second)
				watchOf(ctx).moved()
			}
			return nil
		}, nil, nil, 1, [2]time.Duration{250 * time.Second, 250 * time.Second}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				p := &pusher{opts: Options{Backoff: b}, lim: lim}
				calls := 0
				start := time.Now()
				err := p.retrying(context.Background(), 0, nil, func(ctx context.Context) error { calls++; return tc.try(ctx) })
				took := time.Since(start)
				if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
					t.Fatalf("retrying = %v, want %v", err, tc.want)
				}
				for _, w := range tc.words {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("%q does not say %q", err, w)
					}
				}
				if tc.calls != 0 && calls != tc.calls {
					t.Errorf("%d attempts, want %d", calls, tc.calls)
				}
				if took < tc.between[0] || took > tc.between[1] {
					t.Errorf("ended after %s, want between %s and %s", took, tc.between[0], tc.between[1])
				}
			})
		})
	}
}

func isNil(err error) bool { return err == nil }
