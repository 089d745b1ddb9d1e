// Package retry is Spark's one policy for trying again after a failure:
// which answers are passing trouble and which are final (Passing, Refused,
// Network), how long a server asks to be left alone (ParseRetryAfter), and
// how long to wait before the next attempt (Backoff, full jitter over an
// exponential window, never less than the server's Retry-After).
//
// The outbox's drain (outbox.Classify) and the engine's turn runner (asking
// a Pippa seat) both decide through it; the client and the seat read
// Retry-After through it; the desktop app words refusals with it.
package retry

import (
	"context"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Passing reports whether an answer with an HTTP status other than 2xx is
// passing trouble, which asking again later may cure: 408 Request Timeout,
// 425 Too Early, 429 Too Many Requests, every 5xx, and a 1xx or 3xx the
// HTTP client did not resolve (trouble on the way, not the server's word).
// Any other 4xx is the server's final word on that request; 401 and 403
// are among them, but see Refused.
func Passing(status int) bool {
	switch {
	case status == http.StatusRequestTimeout, status == http.StatusTooEarly,
		status == http.StatusTooManyRequests, status >= 500:
		return true
	case status >= 400:
		return false
	}
	return true
}

// Refused reports whether status refuses the caller's credentials (401
// Unauthorized, 403 Forbidden). Asking again helps only once someone fixes
// them: a caller that waits for that (the outbox, whose user fixes the
// token in Settings) treats it as passing; one that cannot (a turn asking a
// seat with a bad key) gives up at once.
func Refused(status int) bool {
	return status == http.StatusUnauthorized || status == http.StatusForbidden
}

// Network reports whether err is a failure to talk to a server at all: a
// connection refused, reset or cut, a name that does not resolve, a reply
// cut short, a time-out. Such trouble is passing. A local failure (a file,
// a database) is not a network error, whatever system error it carries.
func Network(err error) bool {
	if err == nil {
		return false
	}
	var (
		ue *url.Error
		oe *net.OpError
		de *net.DNSError
	)
	if errors.As(err, &ue) || errors.As(err, &oe) || errors.As(err, &de) {
		return true
	}
	for _, target := range []error{
		io.ErrUnexpectedEOF, context.DeadlineExceeded, os.ErrDeadlineExceeded,
		syscall.ECONNREFUSED, syscall.ECONNRESET, syscall.ECONNABORTED, syscall.EPIPE,
		syscall.ETIMEDOUT, syscall.EHOSTUNREACH, syscall.ENETUNREACH,
	} {
		if errors.Is(err, target) {
			return true
		}
	}
	return false
}

// ParseRetryAfter reads a Retry-After header value (RFC 9110 §10.2.3:
// delay seconds or an HTTP date) as the wait from now. It returns 0 when
// the value is absent, unreadable or in the past.
func ParseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n < 0 || n > math.MaxInt64/int64(time.Second) {
			return 0
		}
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}

// Backoff is full-jitter exponential back-off: after n failures the next
// attempt waits a random time in [0, min(Cap, Base·2^(n-1))), that is
// [0, Base) after the first failure, [0, 2·Base) after the second, and so
// on up to Cap (no cap when Cap is 0); and never less than the server's
// Retry-After. The jitter spreads the retries of many clients that failed
// together.
type Backoff struct {
	Base, Cap time.Duration
	// Rand returns a float in [0, 1); nil is math/rand/v2's Float64.
	// Tests fix it.
	Rand func() float64
}

// Wait is the wait before the attempt that follows failures failures
// (1 after the first), at least retryAfter.
func (b Backoff) Wait(failures int, retryAfter time.Duration) time.Duration {
	window := float64(b.Base)
	if failures > 1 {
		window *= math.Pow(2, float64(failures-1))
	}
	if b.Cap > 0 {
		window = min(window, float64(b.Cap))
	}
	rnd := b.Rand
	if rnd == nil {
		rnd = rand.Float64
	}
	return max(time.Duration(rnd()*window), retryAfter)
}

// Sleep waits d, or until ctx is done, when it returns ctx's error.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
