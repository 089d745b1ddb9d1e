package app

import (
	"errors"
	"fmt"

	"github.com/sparkfamily/spark/api"
	"github.com/sparkfamily/spark/retry"
)

// Error codes the UI acts on, besides the engine's own contract codes.
const (
	CodeOffline      = "offline"      // the engine could not be reached
	CodeUnauthorized = "unauthorized" // the engine refused the token (401/403)
	CodeNotReady     = "not_ready"    // the app did not start (see Status.Problem)
	CodeCanceled     = "canceled"     // the user closed a dialog
	CodeBadInput     = "bad_input"    // something the user typed is not usable
	CodeFailed       = "failed"       // anything else
)

// Sentinel errors of the bound methods.
var (
	// ErrNotReady is returned by every bound method while the app has not
	// started, or could not start; Status says why.
	ErrNotReady = errors.New("app: Spark has not finished starting")
	// ErrCanceled is returned when the user closes a dialog without choosing.
	ErrCanceled = errors.New("app: nothing was chosen")
)

// UIError is what a failed bound call gives the UI: a code to act on and a
// message a person can read.
type UIError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func (e *UIError) Error() string { return e.Message }

// badInput makes a *UIError for a value the user gave that cannot be used.
func badInput(format string, args ...any) error {
	return &UIError{Code: CodeBadInput, Message: fmt.Sprintf(format, args...)}
}

// FormatError turns any error of a bound method into a *UIError. It is the
// Wails ErrorFormatter, so the UI's promise rejects with {code, message}.
func FormatError(err error) any { return toUIError(err) }

func toUIError(err error) *UIError {
	var ue *UIError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ue):
		return ue
	case errors.Is(err, ErrNotReady):
		return &UIError{Code: CodeNotReady, Message: "Spark has not finished starting. Look at the message at the top of the window."}
	case errors.Is(err, ErrCanceled):
		return &UIError{Code: CodeCanceled, Message: "Nothing was chosen."}
	}
	if e, ok := api.AsError(err); ok {
		if retry.Refused(e.Status) {
			return &UIError{Code: CodeUnauthorized, Message: "The engine refused Spark's token (" + e.Message + "). Check the token in Settings."}
		}
		return &UIError{Code: e.Code, Message: e.Message}
	}
	if retry.Network(err) {
		return &UIError{Code: CodeOffline, Message: "The engine can't be reached right now. Your captures are safe on this computer and will send on their own."}
	}
	return &UIError{Code: CodeFailed, Message: err.Error()}
}
