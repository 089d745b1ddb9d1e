package server

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/sparkfamily/spark/engine/api"
)

// decodeJSON reads r's body, at most api.MaxJSONBody bytes, into v. Unknown
// fields are ignored, as the contract asks. Every failure is an *api.Error
// that says where the body broke: 413 body_too_large past the cap, 400
// bad_json for an empty, malformed or mistyped body.
func decodeJSON(w http.ResponseWriter, r *http.Request, v any) error {
	body := http.MaxBytesReader(w, r.Body, api.MaxJSONBody)
	dec := json.NewDecoder(body)
	if err := dec.Decode(v); err != nil {
		return jsonError(err)
	}
	// A second value after the first is a malformed body, not something to
	// ignore: a client that sends two objects meant something else.
	var extra json.RawMessage
	switch err := dec.Decode(&extra); {
	case err == io.EOF:
		return nil
	case err != nil:
		return jsonError(err)
	default:
		return api.Errorf(api.CodeBadJSON, "the body holds more than one JSON value (the second starts near byte %d); send exactly one JSON object", dec.InputOffset()-int64(len(extra)))
	}
}

// jsonError turns a decoding error into the contract's error.
func jsonError(err error) *api.Error {
	var (
		maxErr    *http.MaxBytesError
		syntaxErr *json.SyntaxError
		typeErr   *json.UnmarshalTypeError
	)
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		return bodyTimeout()
	case errors.As(err, &maxErr):
		return api.Errorf(api.CodeBodyTooLarge, "the JSON body is larger than %d bytes; send a smaller body", maxErr.Limit)
	case errors.Is(err, io.EOF):
		return api.Errorf(api.CodeBadJSON, "the request has no body; send a JSON object")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return api.Errorf(api.CodeBadJSON, "the JSON body ends too early; send a complete JSON object")
	case errors.As(err, &syntaxErr):
		return api.Errorf(api.CodeBadJSON, "the body is not valid JSON at byte %d: %v", syntaxErr.Offset, syntaxErr)
	case errors.As(err, &typeErr):
		field := typeErr.Field
		// A field of an embedded request struct comes prefixed with the Go
		// type's name, which means nothing to a JSON author.
		if head, rest, ok := strings.Cut(field, "."); ok && head != "" && unicode.IsUpper(rune(head[0])) {
			field = rest
		}
		if field == "" {
			return api.Errorf(api.CodeBadJSON, "the body must be a JSON object, not a JSON %s", typeErr.Value)
		}
		return api.Errorf(api.CodeBadJSON, "the field %q must be a JSON %s, not %s (at byte %d)", field, jsonKind(typeErr.Type.Kind().String()), typeErr.Value, typeErr.Offset)
	default:
		return api.Errorf(api.CodeBadJSON, "the body is not valid JSON: %v", err)
	}
}

// jsonKind names a Go kind the way a JSON author would.
func jsonKind(kind string) string {
	switch kind {
	case "string":
		return "string"
	case "bool":
		return "boolean"
	case "struct", "map":
		return "object"
	case "slice", "array":
		return "array"
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64", "float32", "float64":
		return "number"
	default:
		return kind
	}
}

// parseTakenAt reads an optional taken_at (parseTime).
func parseTakenAt(raw json.RawMessage) (*time.Time, error) {
	return parseTime(raw, "taken_at", api.CodeBadTakenAt)
}

// parseTime reads an optional RFC 3339 time from raw JSON: absent or null
// is none; anything else that is not a time is refused with code, naming
// field, rather than as bad_json.
func parseTime(raw json.RawMessage, field, code string) (*time.Time, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, api.Errorf(code, "%s must be an RFC 3339 time in a JSON string, like \"2026-05-01T14:30:00Z\"; got %s", field, raw)
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return nil, api.Errorf(code, "%s %q is not an RFC 3339 time; send one like \"2026-05-01T14:30:00Z\"", field, s)
	}
	return &t, nil
}

// queryLimit reads ?limit=: 0 (the service's default) when absent, else
// a whole number from 1; the service checks its upper bound.
func queryLimit(r *http.Request) (int, error) {
	v := r.URL.Query().Get("limit")
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, api.Errorf(api.CodeBadLimit, "limit must be a whole number from 1, or left out for the default; got %q", v)
	}
	return n, nil
}

// queryAfter reads ?after=, the cursor of a page walked by seq (the "next"
// of the page before); none is 0, from the start.
func queryAfter(r *http.Request) (uint64, error) {
	v := r.URL.Query().Get("after")
	if v == "" {
		return 0, nil
	}
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		return 0, api.Errorf(api.CodeBadID, "after must be a whole number from 0, as given in \"next\"; got %q", v)
	}
	return n, nil
}

// queryPage reads the query of a page walked by seq: ?after= (queryAfter)
// and ?limit= (queryLimit), in that order.
func queryPage(r *http.Request) (after uint64, limit int, err error) {
	if after, err = queryAfter(r); err != nil {
		return 0, 0, err
	}
	if limit, err = queryLimit(r); err != nil {
		return 0, 0, err
	}
	return after, limit, nil
}
