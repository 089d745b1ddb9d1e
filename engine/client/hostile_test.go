package client_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/client"
	"github.com/sparkfamily/spark/internal/hostile"
)

// A fake hostile engine (internal/hostile), each test serving one kind of
// hostile answer. The client must end every call with a clear error,
// within its bounds of time and memory.

// An ops page far larger than any engine's is refused as it is read: the
// client stops reading at its bound instead of holding the whole answer.
func TestClient_HugeOpsPageRefused(t *testing.T) {
	var written atomic.Int64
	srv := hostile.Serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if hostile.WriteCounting(w, &written, []byte(`{"ops":[{"seq":1,"at":"2026-01-01T00:00:00Z","op":"moment.edit","data":{"id":"`)) != nil {
			return
		}
		chunk := []byte(strings.Repeat("A", 64<<10))
		for range 1024 { // 64 MiB of one string
			if hostile.WriteCounting(w, &written, chunk) != nil {
				return
			}
		}
		hostile.WriteCounting(w, &written, []byte(`"}}],"next":null}`))
	})
	c := client.New(srv.URL, "tok", hostileHTTPClient())
	_, _, err := c.Ops(context.Background(), 0, 1)
	if err == nil {
		t.Fatalf("Ops of a 64 MiB page = nil error, want it refused")
	}
	if !errors.Is(err, client.ErrTooLarge) {
		t.Errorf("Ops of a 64 MiB page = %v, want ErrTooLarge", err)
	}
	srv.CloseClientConnections()
	if n := written.Load(); n > 2*client.MaxAnswerBytes {
		t.Errorf("the engine wrote %d bytes before the client stopped, want about %d at most", n, client.MaxAnswerBytes)
	}
}

// An answer whose Content-Length is over the bound is refused before its
// body is read.
func TestClient_HugeHealthRefused(t *testing.T) {
	srv := hostile.Serve(t, func(w http.ResponseWriter, r *http.Request) {
		reason := strings.Repeat("x", 1<<20)
		fmt.Fprintf(w, `{"ok":true,"version":"1","seq":1,"reason":%q}`, reason)
	})
	c := client.New(srv.URL, "", hostileHTTPClient())
	if _, err := c.Health(context.Background()); err == nil || !errors.Is(err, client.ErrTooLarge) {
		t.Fatalf("Health of a 1 MiB answer = %v, want ErrTooLarge", err)
	}
}

// A body sent a byte at a time fails once it falls below the minimum
// rate, not when the engine chooses to end it.
func TestClient_SlowDripFails(t *testing.T) {
	stop := make(chan struct{})
	srv := hostile.Serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"ok":true,"version":"`)
		w.(http.Flusher).Flush()
		for range 600 { // 30 s of drip
			select {
			case <-stop:
				return
			case <-r.Context().Done():
				return
			case <-time.After(50 * time.Millisecond):
			}
			if _, err := io.WriteString(w, "v"); err != nil {
				return
			}
			w.(http.Flusher).Flush()
		}
		io.WriteString(w, `","seq":1}`)
	})
	t.Cleanup(func() { close(stop) })
	c := client.New(srv.URL, "", hostileHTTPClient())
	start := time.Now()
	_, err := c.Health(context.Background())
	d := time.Since(start)
	if err == nil {
		t.Fatalf("Health of a drip = nil error after %s, want it cut short", d)
	}
	if d > 5*time.Second {
		t.Errorf("the drip held the call %s, want it ended about the grace (%s) after it began", d, hostileGrace)
	}
	if !errors.Is(err, client.ErrSlowBody) {
		t.Errorf("Health of a drip = %v, want ErrSlowBody", err)
	}
}

// A body that stops moving fails after the idle bound, even within the
// grace.
func TestClient_StalledBodyFails(t *testing.T) {
	release := make(chan struct{})
	srv := hostile.Serve(t, func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"ops":[`)
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	t.Cleanup(func() { close(release) })
	c := client.New(srv.URL, "", client.NewHTTPClient(client.HTTPOptions{BodyIdle: 200 * time.Millisecond, BodyGrace: time.Minute}))
	start := time.Now()
	_, _, err := c.Ops(context.Background(), 0, 1)
	if err == nil || !errors.Is(err, client.ErrSlowBody) {
		t.Fatalf("Ops of a stalled body = %v, want ErrSlowBody", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the stall held the call %s, want about the 200ms idle bound", d)
	}
}

// An engine that stops reading an upload fails it after the idle bound.
func TestClient_StalledUploadFails(t *testing.T) {
	release := make(chan struct{})
	srv := hostile.Serve(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	t.Cleanup(func() { close(release) })
	c := client.New(srv.URL, "", client.NewHTTPClient(client.HTTPOptions{BodyIdle: 300 * time.Millisecond, BodyGrace: time.Minute}))
	size := int64(256 << 20)
	start := time.Now()
	_, _, err := c.PutMedia(context.Background(), client.PutMedia{ID: newID(), MomentID: newID(), Role: api.RoleOriginal,
		Body: io.LimitReader(zeros{}, size), Size: size})
	if err == nil || !errors.Is(err, client.ErrSlowBody) {
		t.Fatalf("PutMedia to an engine that reads nothing = %v, want ErrSlowBody", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the stalled upload held the call %s, want about the 300ms idle bound", d)
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// A body that keeps moving at a sound rate is not cut, however long it
// takes: the bound scales with the bytes.
func TestClient_SlowButSteadyBodyPasses(t *testing.T) {
	srv := hostile.Serve(t, func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"ok":true,"version":"`)
		for range 20 { // 20 KiB over about 1 s: 20 KiB/s, above the 8 KiB/s asked
			time.Sleep(50 * time.Millisecond)
			io.WriteString(w, strings.Repeat("v", 1<<10))
			w.(http.Flusher).Flush()
		}
		io.WriteString(w, `","seq":1}`)
	})
	c := client.New(srv.URL, "", client.NewHTTPClient(client.HTTPOptions{BodyIdle: time.Second, BodyGrace: 200 * time.Millisecond, BodyMinRate: 8 << 10}))
	h, err := c.Health(context.Background())
	if err != nil || !h.OK {
		t.Fatalf("Health of a steady body = %+v, %v", h, err)
	}
}

// A redirect to another port of the same host is refused, and the other
// port sees no request at all, so no token.
func TestClient_RedirectToAnotherPortRefused(t *testing.T) {
	other := hostile.NewWitness(t)
	srv := hostile.Redirecting(t, 1, other.URL)
	c := client.New(srv.URL, "secret-token", hostileHTTPClient())
	_, _, err := c.Ops(context.Background(), 0, 1)
	if err == nil {
		t.Errorf("Ops redirected to another port = nil error, want it refused")
	}
	if !errors.Is(err, client.ErrRedirect) {
		t.Errorf("Ops redirected to another port = %v, want ErrRedirect", err)
	}
	for _, v := range other.Tokens() {
		if v != "" {
			t.Errorf("the other port got a request with Authorization %q", v)
		}
	}
	if n := other.Hits(); n != 0 {
		t.Errorf("the other port got %d requests, want none", n)
	}
}

// A redirect within the engine's own address is followed, without the
// Authorization header.
func TestClient_SameOriginRedirectDropsToken(t *testing.T) {
	var auth atomic.Value
	srv := hostile.Serve(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/ops" {
			http.Redirect(w, r, "/elsewhere", http.StatusFound)
			return
		}
		auth.Store(r.Header.Get("Authorization"))
		io.WriteString(w, `{"ops":[],"next":null}`)
	})
	c := client.New(srv.URL, "secret-token", hostileHTTPClient())
	if _, _, err := c.Ops(context.Background(), 0, 1); err != nil {
		t.Fatalf("Ops redirected within the engine = %v", err)
	}
	if got, _ := auth.Load().(string); got != "" {
		t.Errorf("the redirect carried Authorization %q, want none", got)
	}
}

// A log that claims a seq no engine reaches is refused, and so is a page
// longer than asked.
func TestClient_AbsurdAnswersRefused(t *testing.T) {
	srv := hostile.Serve(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/health":
			io.WriteString(w, `{"ok":true,"version":"1","seq":1099511627776}`)
		case "/v1/ops":
			var b strings.Builder
			b.WriteString(`{"ops":[`)
			for i := 1; i <= 5; i++ {
				if i > 1 {
					b.WriteString(",")
				}
				fmt.Fprintf(&b, `{"seq":%d,"at":"2026-01-01T00:00:00Z","op":"moment.delete","data":{"id":"x"}}`, i)
			}
			b.WriteString(`],"next":5}`)
			io.WriteString(w, b.String())
		}
	})
	c := client.New(srv.URL, "", hostileHTTPClient())
	if h, err := c.Health(context.Background()); err == nil || !errors.Is(err, client.ErrBadAnswer) {
		t.Errorf("Health claiming seq 2^40 = %+v, %v; want ErrBadAnswer", h, err)
	}
	if ops, _, err := c.Ops(context.Background(), 0, 2); err == nil || !errors.Is(err, client.ErrBadAnswer) {
		t.Errorf("Ops(limit 2) answering 5 ops = %d ops, %v; want ErrBadAnswer", len(ops), err)
	}
}

// hostileGrace is the body grace of hostileHTTPClient: short, so that a
// test of a slow body ends in a second.
const hostileGrace = 300 * time.Millisecond

// hostileHTTPClient is NewHTTPClient with bounds short enough for tests.
func hostileHTTPClient() *http.Client {
	return client.NewHTTPClient(client.HTTPOptions{BodyIdle: time.Second, BodyGrace: hostileGrace, BodyMinRate: 1 << 10})
}
