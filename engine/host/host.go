// Package host runs an engine over HTTP, composed once: it opens the
// engine, puts the contract's handler (engine/server) in front of it with
// its metrics, listens, serves, and shuts the whole down in order (stop
// taking requests, let those in flight finish for a grace period, then
// close the engine so that its log is synced). It is the one way Spark runs
// an engine, in the spirit of the WTF Dial app's Main: the desktop app's
// embedded engine, `spark-engine serve`, the tests' enginetest and the
// benches all start theirs with Start.
//
// Serve is the listening and shutdown part alone, for a handler that is not
// an engine (the benches' bare handlers).
package host

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sparkfamily/spark/engine"
	"github.com/sparkfamily/spark/engine/server"
)

// DefaultGrace is how long Close lets requests in flight finish when no
// grace is given.
const DefaultGrace = 5 * time.Second

// Config configures Start.
type Config struct {
	// Engine configures the engine. Its OnBatch and OnTurn, when set, are
	// called as well as the metrics'.
	Engine engine.Config
	// Addr is where to listen, for example "127.0.0.1:8787"; port 0 takes
	// a free port (Engine.URL says which).
	Addr string
	// Server configures the HTTP face. Tokens defaults to the engine's own
	// token store and Logger to Engine.Logger; when Metrics is nil a new
	// set is registered on Registry (a private registry when that is nil
	// too), and the engine's batches and turns feed it.
	Server server.Options
	// HTTP sets the HTTP server's time-outs and its cap on connections per
	// client (server.NewHTTPServer); its Logger defaults to Server.Logger.
	HTTP server.HTTPOptions
	// Grace bounds how long Close lets requests in flight finish before it
	// cuts them off; 0 is DefaultGrace.
	Grace time.Duration
}

// Engine is an engine served over HTTP.
type Engine struct {
	// Engine is the open engine.
	Engine *engine.Engine
	// URL is the base URL the engine answers at: "http://" and Addr.
	URL string
	// Addr is the address listened on, with the port taken for port 0.
	Addr *net.TCPAddr
	// Metrics are the server's collectors.
	Metrics *server.Metrics

	http      *HTTP
	closeOnce sync.Once
	closeErr  error
}

// Start opens the engine in cfg.Engine.Dir and serves the contract on
// cfg.Addr until Close. An error opening the engine is the engine's own; a
// failure to listen is "listen on ADDR: ..." around a *net.OpError, and
// closes the engine again.
func Start(ctx context.Context, cfg Config) (*Engine, error) {
	opts := cfg.Server
	if opts.Logger == nil {
		opts.Logger = cfg.Engine.Logger
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default() // as engine.Open's
	}
	if opts.Metrics == nil {
		if opts.Registry == nil {
			opts.Registry = prometheus.NewRegistry()
		}
		opts.Metrics = server.NewMetrics(opts.Registry)
	}
	m, ecfg := opts.Metrics, cfg.Engine
	ecfg.OnBatch, ecfg.OnTurn = m.ObserveBatch, m.ObserveTurn
	if f := cfg.Engine.OnBatch; f != nil {
		ecfg.OnBatch = func(n int, d time.Duration) { m.ObserveBatch(n, d); f(n, d) }
	}
	if f := cfg.Engine.OnTurn; f != nil {
		ecfg.OnTurn = func(status string) { m.ObserveTurn(status); f(status) }
	}
	eng, err := engine.Open(ctx, ecfg)
	if err != nil {
		return nil, err
	}
	if opts.Tokens == nil {
		opts.Tokens = eng.Tokens()
	}
	hopts := cfg.HTTP
	if hopts.Logger == nil {
		hopts.Logger = opts.Logger
	}
	if hopts.MaxMediaSize == 0 {
		hopts.MaxMediaSize = cfg.Engine.MaxMediaSize
	}
	h, err := serve(cfg.Addr, func(ln net.Listener) (*http.Server, net.Listener) {
		return server.NewHTTPServer(ln, server.New(eng, opts), hopts)
	}, opts.Logger, cfg.Grace)
	if err != nil {
		eng.Close()
		return nil, err
	}
	if !h.Addr.IP.IsLoopback() {
		opts.Logger.Warn("listening on a non-loopback address: tokens and moments cross the network in clear text; put a TLS reverse proxy in front (docs/ENGINE.md)", "addr", h.Addr.String())
	}
	return &Engine{Engine: eng, URL: h.URL, Addr: h.Addr, Metrics: opts.Metrics, http: h}, nil
}

// Done is closed when serving has stopped: after Close, or on its own when
// the listener failed (Err says why).
func (e *Engine) Done() <-chan struct{} { return e.http.Done() }

// Err is why serving stopped on its own, once Done is closed; nil after
// Close.
func (e *Engine) Err() error { return e.http.Err() }

// Close stops serving (requests in flight get the grace period to finish,
// then are cut off) and closes the engine, which syncs its log. Later calls
// return the first one's error.
func (e *Engine) Close() error { return e.CloseWithin(e.http.grace) }

// CloseWithin is Close with grace as the grace period instead of the one
// Start was given: a stop that the system gives only seconds (a Windows
// console closed, a log-off) takes less.
func (e *Engine) CloseWithin(grace time.Duration) error {
	e.closeOnce.Do(func() {
		err := e.http.closeWithin(grace)
		if cerr := e.Engine.Close(); cerr != nil {
			err = errors.Join(err, fmt.Errorf("close the engine: %w", cerr))
		}
		e.closeErr = err
	})
	return e.closeErr
}

// HTTP is a handler served on a TCP address.
type HTTP struct {
	// URL is "http://" and Addr.
	URL string
	// Addr is the address listened on.
	Addr *net.TCPAddr

	srv   *http.Server
	grace time.Duration
	done  chan struct{}
	err   error // why Serve returned on its own; set before done is closed
}

// Serve serves h on addr (port 0: a free port) until Close, with the
// time-outs every Spark HTTP server has; the server's own complaints (a
// broken connection, a bad request line) go to logger at Warn (nil: they
// are dropped). grace is Close's grace period (0: DefaultGrace).
func Serve(addr string, h http.Handler, logger *slog.Logger, grace time.Duration) (*HTTP, error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return serve(addr, func(ln net.Listener) (*http.Server, net.Listener) { return newServer(h, logger), ln }, logger, grace)
}

// serve listens on addr and serves with the server that newSrv makes for
// the listener (which it may wrap).
func serve(addr string, newSrv func(net.Listener) (*http.Server, net.Listener), logger *slog.Logger, grace time.Duration) (*HTTP, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", addr, err)
	}
	if grace <= 0 {
		grace = DefaultGrace
	}
	tcp := ln.Addr().(*net.TCPAddr)
	srv, ln := newSrv(ln)
	s := &HTTP{URL: "http://" + tcp.String(), Addr: tcp, srv: srv, grace: grace, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		if err := s.srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			logger.Error("the HTTP server stopped", "addr", tcp.String(), "err", err)
			s.err = err
		}
	}()
	return s, nil
}

// newServer is the *http.Server of a bare handler (the benches' peers): it
// bounds how long a client may take to send its headers and how long an
// idle connection is kept. An engine's server is server.NewHTTPServer's.
func newServer(h http.Handler, logger *slog.Logger) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
}

// Done is closed when serving has stopped.
func (s *HTTP) Done() <-chan struct{} { return s.done }

// Err is why serving stopped on its own, once Done is closed.
func (s *HTTP) Err() error {
	select {
	case <-s.done:
		return s.err
	default:
		return nil
	}
}

// Close stops taking connections, lets the requests in flight finish for
// the grace period, cuts off those still running, and waits for serving to
// stop.
func (s *HTTP) Close() error { return s.closeWithin(s.grace) }

func (s *HTTP) closeWithin(grace time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	if err != nil {
		s.srv.Close()
		err = fmt.Errorf("requests still running after %s were cut off: %w", grace, err)
	}
	<-s.done
	return err
}
