package main

import (
	"context"
	"io"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/sparkfamily/spark/engine"
	"github.com/sparkfamily/spark/engine/backup"
)

// serveBackup is serve's off-site copy (--backup-to): a backup.Keeper on
// the serve's data folder, run from the engine's start until its stop.
type serveBackup struct {
	k      *backup.Keeper
	log    *slog.Logger
	eng    atomic.Pointer[engine.Engine]
	cancel context.CancelFunc
	done   chan struct{}
}

// newServeBackup opens the target of --backup-to for the folder dir; an
// address that cannot be opened is the error, in words.
func newServeBackup(ctx context.Context, dir, to, endpoint string, stdout io.Writer, log *slog.Logger) (*serveBackup, error) {
	t, err := backup.Open(ctx, to, backup.Options{Endpoint: endpoint})
	if err != nil {
		return nil, err
	}
	key, err := shippingKey(dir, stdout)
	if err != nil {
		return nil, err
	}
	b := &serveBackup{log: log, done: make(chan struct{})}
	b.k = &backup.Keeper{
		Shipper: &backup.Shipper{Dir: dir, Target: t, Key: key, Logger: log},
		LogSeq: func() uint64 {
			if e := b.eng.Load(); e != nil {
				return e.LastSeq()
			}
			return 0
		},
	}
	return b, nil
}

// onBatch is the engine's OnBatch: each batch logged asks the Keeper for
// a pass soon, so that an op is in the copy seconds after it is answered.
// nil without a copy.
func (b *serveBackup) onBatch() func(int, time.Duration) {
	if b == nil {
		return nil
	}
	return func(int, time.Duration) { b.k.Kick() }
}

// start runs the Keeper beside the open engine e.
func (b *serveBackup) start(ctx context.Context, e *engine.Engine) {
	b.eng.Store(e)
	ctx, b.cancel = context.WithCancel(ctx)
	b.log.Info("backup: keeping an off-site copy", "target", b.k.Shipper.Target.String(), "every", backup.DefaultInterval, "drill_every", backup.DefaultCheckEvery)
	go func() {
		defer close(b.done)
		b.k.Run(ctx)
	}()
}

// stop stops the Keeper (a pass or drill in progress stops with it) and
// waits for it: before the engine closes.
func (b *serveBackup) stop() {
	b.cancel()
	<-b.done
	b.eng.Store(nil)
}

// last ships, within grace, what the engine logged since the last pass,
// once the engine is closed and its log synced.
func (b *serveBackup) last(grace time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	if err := b.k.Pass(ctx); err != nil {
		b.log.Warn("backup: the last pass before stopping did not finish; the next start ships the rest", "err", err)
		return
	}
	h := b.k.Health()
	b.log.Info("backup: the copy holds the log through the stop", "shipped_seq", h.ShippedSeq)
}
