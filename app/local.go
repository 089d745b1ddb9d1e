package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/sparkfamily/spark/engine"
	"github.com/sparkfamily/spark/engine/pippa"
	"github.com/sparkfamily/spark/engine/server"
	"github.com/sparkfamily/spark/version"
)

// LocalConfig configures StartLocalEngine.
type LocalConfig struct {
	Dir  string // the engine's data folder
	Addr string // where to listen: "127.0.0.1:0" for a free port
	// Token is the bearer token to keep using; when it is empty or the
	// engine does not know it, a new one is minted.
	Token string
	// Pippa, when its URL is set, becomes the engine's brain seat.
	Pippa Pippa
	// MaxMediaSize is the largest upload the engine takes; 0 is its default.
	MaxMediaSize int64
	Logger       *slog.Logger
}

// LocalEngine is an engine served over loopback HTTP: the app's own, and
// the harness's stand-in for a family engine.
type LocalEngine struct {
	URL    string // http://127.0.0.1:PORT
	Token  string
	Engine *engine.Engine

	srv  *http.Server
	done chan struct{}
}

// tokenName names the app's token in the engine's token store.
const tokenName = "spark-desktop"

// StartLocalEngine opens the engine in cfg.Dir and serves the contract on
// cfg.Addr, refusing requests whose Host is not loopback.
func StartLocalEngine(ctx context.Context, cfg LocalConfig) (*LocalEngine, error) {
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	eng, err := engine.Open(ctx, engine.Config{Dir: cfg.Dir, MaxMediaSize: cfg.MaxMediaSize, Logger: log})
	if err != nil {
		return nil, err
	}
	le := &LocalEngine{Engine: eng, Token: cfg.Token, done: make(chan struct{})}
	fail := func(err error) (*LocalEngine, error) {
		eng.Close()
		return nil, err
	}
	if _, ok := eng.Tokens().Check(le.Token); le.Token == "" || !ok {
		tok, err := eng.Tokens().Add(fmt.Sprintf("%s-%d", tokenName, time.Now().Unix()))
		if err != nil {
			return fail(fmt.Errorf("mint the app's token: %w", err))
		}
		le.Token = tok
	}
	if err := le.SetPippa(ctx, cfg.Pippa); err != nil {
		return fail(err)
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fail(fmt.Errorf("listen on %s: %w", cfg.Addr, err))
	}
	le.URL = "http://" + ln.Addr().String()
	h := server.New(eng, server.Options{Tokens: eng.Tokens(), LoopbackHostsOnly: true, Logger: log, Version: version.Version})
	// The app is this engine's one client: timeouts, but no cap on its
	// connections.
	le.srv, ln = server.NewHTTPServer(ln, h, server.HTTPOptions{MaxConnsPerClient: -1, Logger: log})
	go func() {
		defer close(le.done)
		if err := le.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("the engine's HTTP server stopped", "err", err)
		}
	}()
	log.Info("engine serving", "url", le.URL)
	return le, nil
}

// SetPippa makes p the engine's one brain seat; an empty URL leaves the
// seats as they are.
func (le *LocalEngine) SetPippa(ctx context.Context, p Pippa) error {
	if p.URL == "" {
		return nil
	}
	seat := pippa.Config{Name: "pippa", URL: p.URL, Model: p.Model, Key: p.Key}
	if err := le.Engine.SetSeats(ctx, []pippa.Config{seat}); err != nil {
		return fmt.Errorf("set Pippa: %w", err)
	}
	return nil
}

// Close stops serving (letting requests in flight finish for a moment) and
// closes the engine, which syncs its log.
func (le *LocalEngine) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := le.srv.Shutdown(ctx)
	<-le.done
	return errors.Join(err, le.Engine.Close())
}
