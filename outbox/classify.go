package outbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"time"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/internal/retry"
	"github.com/sparkfamily/spark/internal/sqlitedb"
)

// Verdict codes of trouble that is not the engine's answer (an answer's
// Verdict carries the engine's own code). All of it is passing: the entry
// waits and is tried again.
const (
	// CodeNetwork is trouble reaching the engine at all (refused, reset, a
	// reply cut short, a time-out).
	CodeNetwork = "network"
	// CodeBadAnswer is an answer the engine accepted (2xx) whose body
	// could not be read as the contract says.
	CodeBadAnswer = "bad_answer"
	// CodeOutboxFile is trouble with the outbox's files on this computer
	// other than an entry's own file (which the drain parks with
	// CodeMissingFile, CodeUnreadableFile or CodeChangedFile).
	CodeOutboxFile = "outbox_file"
	// CodeOutboxDatabase is trouble in the outbox's own database (SQLite)
	// on this computer, such as recording a step the engine has done.
	CodeOutboxDatabase = "outbox_database"
	// CodeFailed is any other failure.
	CodeFailed = "failed"
)

// Codes of an entry parked for its own files in the outbox on this
// computer: retrying cannot help until someone puts the file back.
const (
	// CodeMissingFile is a file gone from the outbox (or its whole folder).
	CodeMissingFile = "missing_file"
	// CodeUnreadableFile is a file the outbox cannot read: permission
	// denied, a folder in its place, a read error from the disk.
	CodeUnreadableFile = "unreadable_file"
	// CodeChangedFile is a file whose size is no longer the one recorded
	// when the photo was added.
	CodeChangedFile = "changed_file"
)

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
	// Unreachable is trouble of the kind "the engine did not answer":
	// no connection, a reset, a reply cut short, a time-out, or a 502,
	// 503 or 504 that asked for no wait (a proxy in front of an engine
	// that is away). Its wait ends as soon as the engine is seen to
	// answer again (EngineAnswered). An engine that answered and asked
	// for a wait (429, a Retry-After) is not unreachable: its wait holds.
	Unreachable bool
}

// Classify decides, exactly as the contract says, what a failed step
// means: network errors (refused, reset, a reply cut short, time-outs), the
// statuses retry.Passing names (408, 425, 429, 5xx) and retry.Refused's
// (401, 403: the user fixes the token, and the entry waits for that) are
// passing trouble and the entry waits; any other 4xx parks it with the
// engine's code and message. Errors marked Permanent (an entry's own file
// gone, unreadable or changed in the outbox) park too. Any other failure (the outbox's own files or
// database, an unreadable answer) waits, under a code that names it.
func Classify(err error) Verdict {
	var pe *permanentError
	if errors.As(err, &pe) {
		return Verdict{Park: true, Code: pe.code, Message: pe.err.Error()}
	}
	if e, ok := api.AsError(err); ok && e.Status != 0 {
		v := Verdict{Code: e.Code, Message: e.Message, RetryAfter: e.RetryAfter}
		switch s := e.Status; {
		case s < 400:
			// A 1xx or 3xx the HTTP client did not resolve: trouble on
			// the way, not the engine's refusal.
			v.Message = fmt.Sprintf("unexpected answer %d from the engine: %s", e.Status, e.Message)
		case !retry.Passing(s) && !retry.Refused(s):
			v.Park = true
		case s == http.StatusBadGateway || s == http.StatusServiceUnavailable || s == http.StatusGatewayTimeout:
			v.Unreachable = e.RetryAfter == 0
		}
		return v
	}
	code := troubleCode(err)
	return Verdict{Code: code, Message: err.Error(), Unreachable: code == CodeNetwork}
}

// troubleCode names a failure that is not the engine's answer.
func troubleCode(err error) string {
	var (
		syntaxErr *json.SyntaxError
		typeErr   *json.UnmarshalTypeError
		pathErr   *fs.PathError
	)
	switch {
	case retry.Network(err):
		return CodeNetwork
	case sqlitedb.Code(err) != 0:
		return CodeOutboxDatabase
	case errors.As(err, &pathErr):
		return CodeOutboxFile
	case errors.As(err, &syntaxErr), errors.As(err, &typeErr):
		return CodeBadAnswer
	}
	return CodeFailed
}
