package server_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/enginetest"
)

// answer is an HTTP answer read whole.
type answer struct {
	Status int
	Header http.Header
	Body   []byte
}

// call sends one request to the engine with its token (unless the headers
// say otherwise) and reads the answer.
func call(tb testing.TB, e *enginetest.Engine, method, path string, body any, header ...string) answer {
	tb.Helper()
	a, err := send(e, method, path, body, header...)
	if err != nil {
		tb.Fatal(err)
	}
	return a
}

// send is call for a goroutine other than the test's, which must not end
// the test itself: it returns what went wrong.
func send(e *enginetest.Engine, method, path string, body any, header ...string) (answer, error) {
	var r io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		r = strings.NewReader(b)
	case []byte:
		r = bytes.NewReader(b)
	case io.Reader:
		r = b
	default:
		j, err := json.Marshal(b)
		if err != nil {
			return answer{}, err
		}
		r = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, e.URL+path, r)
	if err != nil {
		return answer{}, err
	}
	req.Header.Set("Authorization", "Bearer "+e.Token)
	switch body.(type) {
	case nil, []byte, io.Reader:
		// Bytes (a media file) go with no Content-Type unless the headers
		// give one: the engine takes a photo's file only as a photo's type,
		// or as bytes with none.
	default:
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		if header[i] == "Host" {
			req.Host = header[i+1]
			continue
		}
		if header[i+1] == "" {
			req.Header.Del(header[i])
			continue
		}
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := e.Client().Do(req)
	if err != nil {
		return answer{}, fmt.Errorf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return answer{}, fmt.Errorf("%s %s: read the answer: %v", method, path, err)
	}
	return answer{Status: resp.StatusCode, Header: resp.Header, Body: b}, nil
}

// want checks the status and decodes the JSON answer into v (if not nil).
func (a answer) want(tb testing.TB, status int, v any) {
	tb.Helper()
	if err := a.decode(status, v); err != nil {
		tb.Fatal(err)
	}
}

// decode is want for a goroutine other than the test's: it returns what
// is wrong with the answer.
func (a answer) decode(status int, v any) error {
	if a.Status != status {
		return fmt.Errorf("status %d, want %d; body: %s", a.Status, status, a.Body)
	}
	if v == nil {
		return nil
	}
	if ct := a.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		return fmt.Errorf("Content-Type %q, want application/json", ct)
	}
	if err := json.Unmarshal(a.Body, v); err != nil {
		return fmt.Errorf("decode %s: %v", a.Body, err)
	}
	return nil
}

// wantError checks that the answer is the contract's error with status and code.
func (a answer) wantError(tb testing.TB, status int, code string) *api.Error {
	tb.Helper()
	var eb struct {
		Error *api.Error `json:"error"`
	}
	a.want(tb, status, &eb)
	if eb.Error == nil || eb.Error.Code != code {
		tb.Fatalf("error %s, want code %q", a.Body, code)
	}
	if eb.Error.Message == "" {
		tb.Fatalf("error %s has no message", a.Body)
	}
	return eb.Error
}

// createMoment creates a note moment and returns it.
func createMoment(tb testing.TB, e *enginetest.Engine, req api.CreateMomentRequest) *api.Moment {
	tb.Helper()
	if req.Kind == "" {
		req.Kind = api.KindNote
	}
	var mr api.MomentResponse
	call(tb, e, "POST", "/v1/moments", req).want(tb, http.StatusCreated, &mr)
	return mr.Moment
}
