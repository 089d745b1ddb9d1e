package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sparkfamily/spark/engine"
	"github.com/sparkfamily/spark/engine/server"
	"github.com/sparkfamily/spark/version"
)

// shutdownGrace is how long in-flight requests get to finish after SIGTERM.
const shutdownGrace = 30 * time.Second

func serveCmd(ctx context.Context, args []string, stderr io.Writer) error {
	fs := newFlagSet("serve", stderr, "serve [--data DIR] [--listen ADDR] [--max-media-size BYTES]")
	data := dataFlag(fs)
	listen := fs.String("listen", "127.0.0.1:8787", "the address to listen on; keep it on loopback and put a TLS reverse proxy in front to reach it from elsewhere")
	maxMedia := fs.Int64("max-media-size", 0, "the largest media upload in bytes (0: the engine's default)")
	logJSON := fs.Bool("log-json", false, "write the log as JSON lines instead of text")
	verbose := fs.Bool("verbose", false, "log every request, successful reads too (by default only writes and failures)")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("serve takes no arguments, got %q", pos)
	}
	if *maxMedia < 0 {
		return usagef("--max-media-size must be positive")
	}
	dir, err := dataDir(*data)
	if err != nil {
		return err
	}
	hopts := &slog.HandlerOptions{Level: slog.LevelInfo}
	if *verbose {
		hopts.Level = slog.LevelDebug
	}
	var handler slog.Handler = slog.NewTextHandler(stderr, hopts)
	if *logJSON {
		handler = slog.NewJSONHandler(stderr, hopts)
	}
	logger := slog.New(handler)

	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create the data directory: %w", err)
	}
	reg := prometheus.NewRegistry()
	metrics := server.NewMetrics(reg)
	cfg := engine.Config{
		Dir:          dir,
		MaxMediaSize: *maxMedia,
		Logger:       logger,
		OnBatch:      metrics.ObserveBatch,
		OnTurn:       metrics.ObserveTurn,
	}
	eng, err := engine.Open(ctx, cfg)
	if err != nil {
		return fmt.Errorf("open the engine in %s: %w", dir, err)
	}

	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		eng.Close()
		return fmt.Errorf("listen on %s: %w; pick another address with --listen", *listen, err)
	}
	addr := ln.Addr().(*net.TCPAddr)
	if !addr.IP.IsLoopback() {
		logger.Warn("listening on a non-loopback address: tokens and moments cross the network in clear text; put a TLS reverse proxy in front (docs/ENGINE.md)", "addr", addr.String())
	}
	srv := &http.Server{
		Handler: server.New(eng, server.Options{
			Tokens:   eng.Tokens(),
			Logger:   logger,
			Metrics:  metrics,
			Registry: reg,
			Version:  version.Version,
		}),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(handler, slog.LevelWarn),
	}
	logger.Info("serving", "addr", addr.String(), "data", dir, "version", version.Version, "seats", len(eng.Seats()))

	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()
	select {
	case err := <-serveErr:
		eng.Close()
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	// A second signal now stops the process at once, the default behaviour.
	signal.Reset(stopSignals...)
	sig := stopSignal(ctx)
	grace := stopGrace(sig)
	logger.Info("stopping: finishing in-flight requests (a second signal stops at once)", "signal", sig, "grace", grace)
	sctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	shutErr := srv.Shutdown(sctx)
	if err := <-serveErr; err != nil && !errors.Is(err, http.ErrServerClosed) {
		logger.Error("serve", "err", err)
	}
	if err := eng.Close(); err != nil {
		return fmt.Errorf("close the engine: %w", err)
	}
	if shutErr != nil {
		return fmt.Errorf("requests still running after %s were cut off: %w", grace, shutErr)
	}
	logger.Info("stopped; the log is synced")
	return nil
}
