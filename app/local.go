package app

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/sparkfamily/spark/app/view"
	"github.com/sparkfamily/spark/engine"
	"github.com/sparkfamily/spark/engine/auth"
	"github.com/sparkfamily/spark/engine/backup"
	"github.com/sparkfamily/spark/engine/host"
	"github.com/sparkfamily/spark/engine/pippa"
	"github.com/sparkfamily/spark/engine/server"
	"github.com/sparkfamily/spark/internal/version"
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
	// Backup, when set, is where the engine keeps its off-site copy: a
	// Keeper ships there while the engine runs (SetBackup).
	Backup backup.Target
	Logger *slog.Logger
}

// LocalEngine is an engine served over loopback HTTP: the app's own, and
// the harness's stand-in for a family engine.
type LocalEngine struct {
	URL    string // http://127.0.0.1:PORT
	Token  string
	Engine *engine.Engine

	served *host.Engine
	keeper *keeperSlot
}

// tokenName names the app's token in the engine's token store.
const tokenName = view.AppTokenName

// StartLocalEngine opens the engine in cfg.Dir and serves the contract on
// cfg.Addr, refusing requests whose Host is not loopback.
func StartLocalEngine(ctx context.Context, cfg LocalConfig) (*LocalEngine, error) {
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	// The keeper's health is the engine's: GET /v1/health carries it, so
	// the window reads the copy's state as it reads a family engine's.
	slot := &keeperSlot{log: log.With("part", "backup")}
	se, err := host.Start(ctx, host.Config{
		Engine: engine.Config{Dir: cfg.Dir, MaxMediaSize: cfg.MaxMediaSize, Logger: log, OnBatch: slot.kick},
		Addr:   cfg.Addr,
		Server: server.Options{LoopbackHostsOnly: true, Version: version.Version, Backup: slot},
		// The app is this engine's one client: time-outs, but no cap on
		// its connections.
		HTTP: server.HTTPOptions{MaxConnsPerClient: -1},
	})
	if err != nil {
		return nil, err
	}
	le := &LocalEngine{URL: se.URL, Engine: se.Engine, Token: cfg.Token, served: se, keeper: slot}
	fail := func(err error) (*LocalEngine, error) {
		se.Close()
		return nil, err
	}
	if _, ok := se.Engine.Tokens().Check(le.Token); le.Token == "" || !ok {
		tok, err := se.Engine.Tokens().Add(fmt.Sprintf("%s-%d", tokenName, time.Now().Unix()), auth.ScopeAdmin)
		if err != nil {
			return fail(fmt.Errorf("mint the app's token: %w", err))
		}
		le.Token = tok
	}
	if err := le.SetPippa(ctx, cfg.Pippa); err != nil {
		return fail(err)
	}
	if err := le.SetBackup(cfg.Backup); err != nil {
		// The engine runs; Settings says there is no copy until one is
		// set up again.
		log.Error("the off-site copy cannot start", "err", err)
	}
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

// SetBackup makes t the engine's off-site copy: the keeper of the copy
// before stops, and one for t starts (none when t is nil).
func (le *LocalEngine) SetBackup(t backup.Target) error {
	return le.keeper.run(le.Engine, t)
}

// Close stops the off-site copy's keeper, then serving (letting requests
// in flight finish for a moment), and closes the engine, which syncs its
// log.
func (le *LocalEngine) Close() error {
	le.keeper.run(nil, nil)
	return le.served.Close()
}
