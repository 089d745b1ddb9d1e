package outbox

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sparkfamily/spark/engine"
	"github.com/sparkfamily/spark/engine/auth"
	"github.com/sparkfamily/spark/engine/server"
)

// pipeListener is a net.Listener over net.Pipe: HTTP between the drain and
// an engine inside a synctest bubble, where a real socket would hold the
// fake clock still.
type pipeListener struct {
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func newPipeListener() *pipeListener {
	return &pipeListener{conns: make(chan net.Conn), done: make(chan struct{})}
}

func (l *pipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *pipeListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *pipeListener) Addr() net.Addr { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)} }

func (l *pipeListener) dial(ctx context.Context, _, _ string) (net.Conn, error) {
	client, srv := net.Pipe()
	select {
	case l.conns <- srv:
		return client, nil
	case <-l.done:
		return nil, net.ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// TestDrain_RetryAfterOnFakeClock: the drain honours Retry-After, in
// seconds and as a date. On a fake clock, the real engine behind a fault
// injector answers the first create 503 with Retry-After: 120 and the
// second 429 with a Retry-After date five minutes ahead; the drain waits
// exactly that long each time (the back-off alone would be milliseconds),
// and the test takes no wall time.
func TestDrain_RetryAfterOnFakeClock(t *testing.T) {
	t.Setenv("SPARK_BRAIN_URL", "")
	src := writePhoto(t, t.TempDir(), "a.jpg", 910)
	engDir, obDir := t.TempDir(), t.TempDir()
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		quiet := slog.New(slog.DiscardHandler)
		eng, err := engine.Open(ctx, engine.Config{Dir: engDir, Logger: quiet})
		if err != nil {
			t.Fatal(err)
		}
		defer eng.Close()
		token, err := eng.Tokens().Add("fake-clock", auth.ScopeAdmin)
		if err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		var creates []time.Time
		h := server.New(eng, server.Options{Tokens: eng.Tokens(), Logger: quiet})
		faults := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if route(r) == StepCreate {
				mu.Lock()
				creates = append(creates, time.Now())
				n := len(creates)
				mu.Unlock()
				switch n {
				case 1:
					w.Header().Set("Retry-After", "120")
					http.Error(w, `{"error":{"code":"unavailable","message":"busy"}}`, http.StatusServiceUnavailable)
					return
				case 2:
					w.Header().Set("Retry-After", time.Now().Add(5*time.Minute).UTC().Format(http.TimeFormat))
					http.Error(w, `{"error":{"code":"slow_down","message":"later"}}`, http.StatusTooManyRequests)
					return
				}
			}
			h.ServeHTTP(w, r)
		})
		ln := newPipeListener()
		srv := &http.Server{Handler: faults}
		go srv.Serve(ln)
		defer srv.Close()
		tr := &http.Transport{DialContext: ln.dial}
		defer tr.CloseIdleConnections()

		opts := testOptions()
		opts.HTTPClient = &http.Client{Transport: tr}
		o, err := Open(ctx, obDir, opts)
		if err != nil {
			t.Fatal(err)
		}
		defer o.Close()
		mustCapture(t, o, src)
		o.SetTarget(Target{URL: "http://engine.test", Token: token})
		runCtx, stop := context.WithCancel(ctx)
		ran := make(chan error, 1)
		go func() { ran <- o.Run(runCtx) }()
		start := time.Now()
		for {
			c, err := o.Counts(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if c.Done == 1 {
				break
			}
			if time.Since(start) > time.Hour {
				t.Fatalf("not delivered after an hour on the fake clock: %+v", c)
			}
			time.Sleep(time.Second)
		}
		stop()
		if err := <-ran; err != nil {
			t.Fatal(err)
		}

		mu.Lock()
		defer mu.Unlock()
		if len(creates) != 3 {
			t.Fatalf("%d creates, want 3", len(creates))
		}
		if gap := creates[1].Sub(creates[0]); gap < 120*time.Second || gap > 121*time.Second {
			t.Errorf("retried %s after Retry-After: 120, want 2m0s", gap)
		}
		// An HTTP date has whole seconds: at most a second early.
		if gap := creates[2].Sub(creates[1]); gap < 299*time.Second || gap > 301*time.Second {
			t.Errorf("retried %s after a Retry-After date 5m ahead, want about 5m0s", gap)
		}
	})
}
