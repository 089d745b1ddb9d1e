// Package enginetest starts a real engine, served over loopback HTTP, for the
// tests of the packages that talk to one (engine/server, client, outbox,
// the app). Nothing is faked but Pippa's model server (pippatest).
package enginetest

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/sparkfamily/spark/engine"
	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/auth"
	"github.com/sparkfamily/spark/engine/client"
	"github.com/sparkfamily/spark/engine/host"
	"github.com/sparkfamily/spark/engine/pippa"
	"github.com/sparkfamily/spark/engine/pippa/pippatest"
	"github.com/sparkfamily/spark/engine/server"
)

// Engine is a running engine and its HTTP server.
type Engine struct {
	// URL is the server's base URL, without a trailing slash.
	URL string
	// Token is a valid bearer token.
	Token string
	// Engine is the engine itself.
	Engine *engine.Engine
	// Dir is the engine's data directory.
	Dir string
	// Pippa is the fake model server the engine's seat points at; nil with
	// WithoutSeat.
	Pippa *pippatest.Server
	// Metrics are the server's collectors.
	Metrics *server.Metrics

	served *host.Engine
	hc     *http.Client
	closed bool
}

type config struct {
	seat     bool
	maxMedia int64
	dir      string
	loopback bool
	engCfg   func(*engine.Config)
}

// tokenName names the token Start adds.
const tokenName = "enginetest"

// Option changes how Start starts an engine.
type Option func(*config)

// WithoutSeat starts the engine with no brain seat: turns stay queued.
func WithoutSeat() Option { return func(c *config) { c.seat = false } }

// WithMaxMediaSize sets the engine's media size limit.
func WithMaxMediaSize(n int64) Option { return func(c *config) { c.maxMedia = n } }

// WithDir starts the engine on dir instead of a fresh temp dir, for example
// to restart on an existing engine's data.
func WithDir(dir string) Option { return func(c *config) { c.dir = dir } }

// WithLoopbackHostsOnly turns on the server's DNS-rebinding guard.
func WithLoopbackHostsOnly() Option { return func(c *config) { c.loopback = true } }

// WithConfig lets a test change the engine's Config before Open (its Dir,
// Seats and callbacks are already filled in).
func WithConfig(f func(*engine.Config)) Option { return func(c *config) { c.engCfg = f } }

// Start opens a real engine in tb.TempDir() (or WithDir), serves it on
// 127.0.0.1 at a free port with a fresh token, and closes both at the end of
// the test. Unless WithoutSeat, its one brain seat is a pippatest server.
func Start(tb testing.TB, opts ...Option) *Engine {
	tb.Helper()
	c := config{seat: true}
	for _, o := range opts {
		o(&c)
	}
	if c.dir == "" {
		c.dir = tb.TempDir()
	}
	// The engine reads SPARK_BRAIN_* itself; a test must not pick up a real
	// model server from the developer's environment. (Only when set, since
	// Setenv is refused in parallel tests.)
	for _, v := range []string{"SPARK_BRAIN_URL", "SPARK_BRAIN_MODEL", "SPARK_BRAIN_KEY"} {
		if os.Getenv(v) != "" {
			tb.Setenv(v, "")
		}
	}
	logger := slog.New(slog.NewTextHandler(tbWriter{tb}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	cfg := engine.Config{
		Dir:          c.dir,
		MaxMediaSize: c.maxMedia,
		Logger:       logger,
		RetryBackoff: 10 * time.Millisecond,
	}
	e := &Engine{Dir: c.dir}
	if c.seat {
		e.Pippa = pippatest.New(tb)
		cfg.Seats = []pippa.Config{e.Pippa.Config()}
	}
	if c.engCfg != nil {
		c.engCfg(&cfg)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	se, err := host.Start(ctx, host.Config{
		Engine: cfg,
		Addr:   "127.0.0.1:0",
		Server: server.Options{LoopbackHostsOnly: c.loopback},
	})
	if err != nil {
		tb.Fatalf("enginetest: start the engine in %s: %v", c.dir, err)
	}
	e.served, e.Engine, e.URL, e.Metrics = se, se.Engine, se.URL, se.Metrics
	e.hc = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	tb.Cleanup(e.Close)
	// On a restart (WithDir) the previous run's token is replaced by a fresh one.
	if _, err := se.Engine.Tokens().Revoke(tokenName); err != nil {
		tb.Fatalf("enginetest: replace the token: %v", err)
	}
	// An admin token, as every token stored before scopes became: the
	// tests that exercise a device's limits add one with AddToken.
	token, err := se.Engine.Tokens().Add(tokenName, auth.ScopeAdmin)
	if err != nil {
		tb.Fatalf("enginetest: add a token: %v", err)
	}
	e.Token = token
	return e
}

// AddToken adds a token named name with scope to the engine's store and
// returns it, for a test that acts as a second client.
func (e *Engine) AddToken(tb testing.TB, name string, scope auth.Scope) string {
	tb.Helper()
	tok, err := e.Engine.Tokens().Add(name, scope)
	if err != nil {
		tb.Fatalf("enginetest: add the token %q: %v", name, err)
	}
	return tok
}

// AddMemberToken adds a token named name of the family member member
// with scope to the engine's store and returns it (AddToken's tokens are
// each the member of their own name).
func (e *Engine) AddMemberToken(tb testing.TB, name, member string, scope auth.Scope) string {
	tb.Helper()
	tok, err := e.Engine.Tokens().AddMember(name, member, scope)
	if err != nil {
		tb.Fatalf("enginetest: add the token %q of %q: %v", name, member, err)
	}
	return tok
}

// Close stops the server (in-flight requests finish) and closes the engine.
// Tests may call it to restart on the same Dir; Cleanup calls it again
// harmlessly.
func (e *Engine) Close() {
	if e.closed {
		return
	}
	e.closed = true
	e.served.Close()
	e.hc.CloseIdleConnections()
}

// Client returns an HTTP client for the server.
func (e *Engine) Client() *http.Client { return e.hc }

// OpCount returns how many ops named op the log holds, read through the
// engine's own view of the log (GET /v1/ops's source). An empty op counts
// them all.
func (e *Engine) OpCount(tb testing.TB, op string) int {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	n := 0
	var after uint64
	for {
		ops, next, err := e.Engine.Ops(ctx, after, api.MaxOpsLimit)
		if err != nil {
			tb.Fatalf("enginetest: read the log: %v", err)
		}
		for _, o := range ops {
			if op == "" || o.Op == op {
				n++
			}
		}
		if next == nil || len(ops) == 0 {
			return n
		}
		after = *next
	}
}

// Moments returns every live moment the server lists, newest first, as a
// client reads them page by page.
func (e *Engine) Moments(tb testing.TB) []api.Moment {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := client.New(e.URL, e.Token, e.hc)
	var all []api.Moment
	before := ""
	for {
		ms, next, err := c.Moments(ctx, api.MaxPageLimit, before)
		if err != nil {
			tb.Fatalf("enginetest: list the moments: %v", err)
		}
		all = append(all, ms...)
		if next == nil {
			return all
		}
		before = *next
	}
}

// Media returns the bytes the server serves for the media file id.
func (e *Engine) Media(tb testing.TB, id string) []byte {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	body, err := client.New(e.URL, e.Token, e.hc).GetMedia(ctx, id)
	if err != nil {
		tb.Fatalf("enginetest: get media %s: %v", id, err)
	}
	defer body.Close()
	b, err := io.ReadAll(body)
	if err != nil {
		tb.Fatalf("enginetest: read media %s: %v", id, err)
	}
	return b
}

// tbWriter sends the engine's warnings to the test's log.
type tbWriter struct{ tb testing.TB }

func (w tbWriter) Write(p []byte) (int, error) {
	w.tb.Log(strings.TrimSuffix(string(p), "\n"))
	return len(p), nil
}
