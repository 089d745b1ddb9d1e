package client_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sparkfamily/spark/engine/client"
	"github.com/sparkfamily/spark/internal/retry"
)

// An engine that takes the request and never answers fails the call after
// HeaderTimeout, not never.
func TestNewHTTPClient_HeaderTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-release }))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	c := client.New(srv.URL, "", client.NewHTTPClient(client.HTTPOptions{HeaderTimeout: 100 * time.Millisecond}))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	_, err := c.Health(ctx)
	if err == nil || ctx.Err() != nil || !retry.Network(err) {
		t.Fatalf("Health of a silent engine = %v (ctx %v), want a network error", err, ctx.Err())
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the call failed after %s, want about the 100ms HeaderTimeout", d)
	}
}

// WithProgress hears a call's bytes as they move: its body sent, the
// answer's headers and the answer's body; a call without it is not heard.
func TestWithProgress(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		io.WriteString(w, "answer")
	}))
	t.Cleanup(srv.Close)
	hc := client.NewHTTPClient(client.HTTPOptions{})
	var heard atomic.Int64
	call := func(ctx context.Context) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, strings.NewReader("question"))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if b, err := io.ReadAll(resp.Body); err != nil || string(b) != "answer" {
			t.Fatalf("answer %q, %v", b, err)
		}
	}
	call(t.Context())
	if n := heard.Load(); n != 0 {
		t.Fatalf("a call without WithProgress was heard %d times", n)
	}
	call(client.WithProgress(t.Context(), func() { heard.Add(1) }))
	if n := heard.Load(); n < 3 {
		t.Errorf("heard %d times; want the body sent, the headers and the body read", n)
	}
}
