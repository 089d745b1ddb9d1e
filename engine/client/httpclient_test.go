package client_test

import (
	"context"
	"net/http"
	"net/http/httptest"
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
