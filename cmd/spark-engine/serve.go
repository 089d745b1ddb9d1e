package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"os/signal"
	"time"

	"github.com/sparkfamily/spark/engine"
	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/host"
	"github.com/sparkfamily/spark/engine/server"
	"github.com/sparkfamily/spark/internal/version"
)

// shutdownGrace is how long in-flight requests get to finish after SIGTERM.
const shutdownGrace = 30 * time.Second

func serveCmd(ctx context.Context, args []string, stderr io.Writer) error {
	fs := newFlagSet("serve", stderr, "serve [--data DIR] [--listen ADDR] [--trusted-proxy ADDR]... [--max-media-size BYTES] [--turns-per-day N] [--keep-deleted-days N] [--log-file FILE] [--backup-to file:///PATH | s3://BUCKET/PREFIX [--backup-endpoint URL]]")
	data := dataFlag(fs)
	listen := fs.String("listen", "127.0.0.1:8787", "the address to listen on; keep it on loopback and put a TLS reverse proxy in front to reach it from elsewhere")
	var proxies []netip.Prefix
	fs.Func("trusted-proxy", "the address (an IP or a CIDR; repeat the flag or separate them with commas) of the reverse proxy in front of the engine: requests coming from it are counted by the client address it forwards in X-Forwarded-For; without it the header is never believed", func(v string) error {
		ps, err := server.ParseTrustedProxies(v)
		proxies = append(proxies, ps...)
		return err
	})
	maxMedia := fs.Int64("max-media-size", 0, "the largest media upload in bytes (0: the engine's default)")
	turnsPerDay := fs.Int("turns-per-day", engine.DefaultTurnsPerDay, "the most new readings each family member may ask for in a day (UTC), on all their device tokens together, since each is a paid completion; 0: no daily limit (each member is still held to 30 at once, then one every 2 s; admin tokens are not limited)")
	logJSON := fs.Bool("log-json", false, "write the log as JSON lines instead of text")
	logFile := fs.String("log-file", "", "append the log to this file instead of standard error (a Windows service has none)")
	verbose := fs.Bool("verbose", false, "log every request, successful reads too (by default only writes and failures)")
	keepDays := fs.Int("keep-deleted-days", int(api.RecentlyDeletedFor/(24*time.Hour)), "how many days a deleted moment waits in Recently deleted, where it can be restored, before the engine removes it for good with its photos; 0: keep deleted moments for ever")
	backupTo := fs.String("backup-to", "", "keep an off-site copy of the data folder there, shipped every 10 s and drilled daily (GET /v1/health says how it stands): file:///PATH (an external disk or a mounted share) or s3://BUCKET/PREFIX (credentials from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION or ~/.aws)")
	endpoint := endpointFlag(fs)
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
	if *turnsPerDay < 0 {
		return usagef("--turns-per-day must be 0 (no daily limit) or more")
	}
	if *keepDays < 0 || *keepDays > 36500 {
		return usagef("--keep-deleted-days must be between 0 (for ever) and 36500")
	}
	keepDeleted := time.Duration(*keepDays) * 24 * time.Hour
	if *keepDays == 0 {
		keepDeleted = -1 // the engine's word for never
	}
	perDay := *turnsPerDay
	if perDay == 0 {
		perDay = -1 // the engine's word for no daily quota
	}
	if *endpoint != "" && *backupTo == "" {
		return usagef("serve: --backup-endpoint names the store of --backup-to; give --backup-to s3://BUCKET/PREFIX too")
	}
	dir, err := dataDir(*data)
	if err != nil {
		return err
	}
	hopts := &slog.HandlerOptions{Level: slog.LevelInfo}
	if *verbose {
		hopts.Level = slog.LevelDebug
	}
	logOut := stderr
	if *logFile != "" {
		f, err := os.OpenFile(*logFile, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			return fmt.Errorf("open the log file: %w", err)
		}
		defer f.Close()
		logOut = f
	}
	var handler slog.Handler = slog.NewTextHandler(logOut, hopts)
	if *logJSON {
		handler = slog.NewJSONHandler(logOut, hopts)
	}
	logger := slog.New(handler)

	var bk *serveBackup
	sopts := server.Options{Version: version.Version}
	if *backupTo != "" {
		if bk, err = newServeBackup(ctx, dir, *backupTo, *endpoint, stderr, logger); err != nil {
			return usagef("serve: --backup-to: %v", err)
		}
		sopts.Backup = bk.k
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create the data directory: %w", err)
	}
	se, err := host.Start(ctx, host.Config{
		Engine: engine.Config{Dir: dir, MaxMediaSize: *maxMedia, TurnsPerDay: perDay, KeepDeleted: keepDeleted, Logger: logger, OnBatch: bk.onBatch()},
		Addr:   *listen,
		Server: sopts,
		HTTP:   server.HTTPOptions{TrustedProxies: proxies},
		Grace:  shutdownGrace,
	})
	if err != nil {
		var oe *net.OpError
		if errors.As(err, &oe) && oe.Op == "listen" {
			return fmt.Errorf("%w; pick another address with --listen", err)
		}
		return fmt.Errorf("open the engine in %s: %w", dir, err)
	}
	logger.Info("serving", "addr", se.Addr.String(), "data", dir, "version", version.Version, "seats", len(se.Engine.Seats()),
		"trusted_proxies", fmt.Sprint(proxies), "turns_per_day", *turnsPerDay, "keep_deleted_days", *keepDays)
	if bk != nil {
		bk.start(ctx, se.Engine)
	}

	select {
	case <-se.Done():
		err := se.Err()
		if bk != nil {
			bk.stop()
		}
		se.Close()
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	// A second signal now stops the process at once, the default behaviour.
	signal.Reset(stopSignals...)
	sig := stopSignal(ctx)
	grace := stopGrace(sig)
	logger.Info("stopping: finishing in-flight requests (a second signal stops at once)", "signal", sig, "grace", grace)
	if bk != nil {
		bk.stop()
	}
	if err := se.CloseWithin(grace); err != nil {
		return err
	}
	logger.Info("stopped; the log is synced")
	if bk != nil {
		bk.last(grace)
	}
	return nil
}
