package outbox

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"time"

	"github.com/sparkfamily/spark/api"
)

// CodeNetwork is the Verdict code of trouble reaching the engine at all
// (refused, reset, a reply cut short, a time-out).
const CodeNetwork = "network"

// permanentError marks a failure that retrying cannot fix (river's
// Permanent): the entry is parked.
type permanentError struct {
	code string
	err  error
}

func (e *permanentError) Error() string { return e.err.Error() }
func (e *permanentError) Unwrap() error { return e.err }

// Permanent wraps err so that Classify parks the entry with code.
func Permanent(code string, err error) error { return &permanentError{code: code, err: err} }

// Verdict is what the drain does after a failed step.
type Verdict struct {
	Park bool
	// Code and Message are shown to the user: the engine's own for a
	// refusal, or a description of the trouble.
	Code    string
	Message string
	// RetryAfter is the engine's Retry-After, a floor for the wait.
	RetryAfter time.Duration
}

// Classify decides, exactly as the contract says, what a failed step
// means: network errors (refused, reset, a reply cut short, time-outs), 5xx,
// 401, 403, 408, 425 and 429 are passing trouble and the entry waits; any
// other 4xx parks it with the engine's code and message. Errors marked
// Permanent (a file missing from the outbox) park too.
func Classify(err error) Verdict {
	var pe *permanentError
	if errors.As(err, &pe) {
		return Verdict{Park: true, Code: pe.code, Message: pe.err.Error()}
	}
	if e, ok := api.AsError(err); ok && e.Status != 0 {
		v := Verdict{Code: e.Code, Message: e.Message, RetryAfter: e.RetryAfter}
		switch s := e.Status; {
		case s == http.StatusUnauthorized, s == http.StatusForbidden, s == http.StatusRequestTimeout,
			s == http.StatusTooEarly, s == http.StatusTooManyRequests, s >= 500:
			return v
		case s >= 400:
			v.Park = true
			return v
		}
		// A 1xx or 3xx the HTTP client did not resolve: treat as trouble
		// on the way, not as the engine's refusal.
		v.Message = fmt.Sprintf("unexpected answer %d from the engine: %s", e.Status, e.Message)
		return v
	}
	return Verdict{Code: CodeNetwork, Message: err.Error()}
}

// backoff is the wait before attempt n+1 (n failures so far): full jitter
// over an exponential window, at least retryAfter.
func backoff(n int, base, limit, retryAfter time.Duration, rnd func() float64) time.Duration {
	window := float64(base) * math.Pow(2, float64(n-1))
	if n < 1 {
		window = float64(base)
	}
	if window > float64(limit) {
		window = float64(limit)
	}
	d := time.Duration(rnd() * window)
	if d < retryAfter {
		d = retryAfter
	}
	return d
}
