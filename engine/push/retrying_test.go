package push

import (
	"context"
	"errors"
	"net"
	"os"
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
				err := p.retrying(context.Background(), tc.tries, func(error) { retries++ }, func() error {
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
		err := p.retrying(ctx, 0, nil, func() error { return &api.Error{Status: 503, Code: "unavailable"} })
		if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) != time.Minute {
			t.Errorf("retrying = %v after %s, want the deadline after 1m", err, time.Since(start))
		}
	})
}

func isNil(err error) bool { return err == nil }
