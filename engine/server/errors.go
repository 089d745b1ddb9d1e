package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/sparkfamily/spark/engine/api"
)

// Error writes err as the contract's JSON error answer. An *api.Error keeps
// its code and message, with the status from api.HTTPStatus; anything else
// is logged in full and answered 500 "internal" with a generic message, so
// no detail of the machine leaks to the caller.
func (s *server) Error(w http.ResponseWriter, r *http.Request, err error) {
	e, ok := api.AsError(err)
	if !ok && errors.Is(err, os.ErrDeadlineExceeded) {
		e, ok = bodyTimeout(), true
	}
	if !ok {
		s.log.ErrorContext(r.Context(), "internal error", "method", r.Method, "path", r.URL.Path, "err", err)
		e = api.Errorf(api.CodeInternal, "the engine failed to handle this request; its log has the details, and retrying later may help")
	}
	writeError(w, e)
}

// bodyTimeout is the error of a request whose body did not arrive before
// its read deadline (NewHTTPServer's limits).
func bodyTimeout() *api.Error {
	return api.Errorf(api.CodeRequestTimeout, "the request's body did not arrive in time; the connection is too slow or was interrupted: send the request again")
}

// writeError writes e with the status of its code; a 503 or 429 carries
// e's RetryAfter (5 s when it has none) as Retry-After.
func writeError(w http.ResponseWriter, e *api.Error) {
	status := api.HTTPStatus(e.Code)
	if status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="spark"`)
	}
	if (status == http.StatusServiceUnavailable || status == http.StatusTooManyRequests) && w.Header().Get("Retry-After") == "" {
		secs := 5
		if e.RetryAfter > 0 {
			secs = int((e.RetryAfter + time.Second - 1) / time.Second)
		}
		w.Header().Set("Retry-After", strconv.Itoa(secs))
	}
	writeJSON(w, status, api.ErrorBody{Error: &api.Error{Code: e.Code, Message: e.Message}})
}

// answerBufs holds the buffers writeJSON encodes into, reused from one
// answer to the next; one grown past maxPooledAnswer is let go.
var answerBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

const maxPooledAnswer = 64 << 10

// writeJSON encodes v as the answer with the given status: json.Marshal's
// bytes and a newline.
func writeJSON(w http.ResponseWriter, status int, v any) {
	buf := answerBufs.Get().(*bytes.Buffer)
	defer func() {
		if buf.Cap() <= maxPooledAnswer {
			answerBufs.Put(buf)
		}
	}()
	buf.Reset()
	// An Encoder writes what json.Marshal returns, then a newline, and
	// writes nothing when encoding fails.
	if err := json.NewEncoder(buf).Encode(v); err != nil {
		// Only a programming error can get here: every answer is a plain
		// struct of the api package.
		slog.Error("encode answer", "err", err)
		http.Error(w, `{"error":{"code":"internal","message":"the engine could not encode its answer"}}`, http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// statusFor is the status of a write's answer: whenNew (201 or 202, as the
// contract says for that route) when the write happened, 200 when it was a
// repeat that wrote nothing.
func statusFor(created bool, whenNew int) int {
	if created {
		return whenNew
	}
	return http.StatusOK
}
