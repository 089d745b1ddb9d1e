package engine

import (
	"context"
	"sync"
	"time"
)

// DefaultUploadSweepEvery is how often, by default, a running engine
// removes the uploads with no progress for UploadMaxAge: a twenty-fourth
// of it, so that a stale upload's bytes stay at most an hour past their
// expiry.
const DefaultUploadSweepEvery = UploadMaxAge / 24

// uploadSweeper is the goroutine that keeps house while the engine runs:
// it sweeps the uploads and purges the moments deleted long ago (purge.go)
// every Config.UploadSweepEvery; Open purges once itself.
// Started by Open, stopped by Close.
type uploadSweeper struct {
	once   sync.Once
	cancel context.CancelFunc
	done   chan struct{}
}

// startUploadSweep starts sweeping the uploads every
// Config.UploadSweepEvery. Without it, the bytes of an upload left alone
// stayed on disk past their expiry until another upload was made or the
// engine restarted.
func (e *Engine) startUploadSweep() {
	every := e.cfg.UploadSweepEvery
	if every <= 0 {
		every = DefaultUploadSweepEvery
	}
	ctx, cancel := context.WithCancel(context.Background())
	e.sweeper = &uploadSweeper{cancel: cancel, done: make(chan struct{})}
	go func(done chan<- struct{}) {
		defer close(done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				e.sweepUploads(ctx)
				e.purgeLogged(ctx)
			}
		}
	}(e.sweeper.done)
}

// purgeLogged purges (purge.go), logging a failure: the next round tries
// again.
func (e *Engine) purgeLogged(ctx context.Context) {
	if _, err := e.purge(ctx); err != nil && ctx.Err() == nil {
		e.logger.Warn("engine: purge the moments deleted long ago", "err", err)
	}
}

// stopUploadSweep stops the sweeping and waits for a sweep under way to
// end; again, or with none started, it does nothing.
func (e *Engine) stopUploadSweep() {
	s := e.sweeper
	if s == nil {
		return
	}
	s.once.Do(func() {
		s.cancel()
		<-s.done
	})
}

// sweepUploadsSoon sweeps the uploads, at most once a minute: as uploads
// are made, beside the sweeper's own rounds.
func (e *Engine) sweepUploadsSoon(ctx context.Context) {
	now := e.cfg.Now()
	e.uploads.mu.Lock()
	if now.Sub(e.uploads.swept) < time.Minute && !e.uploads.swept.IsZero() {
		e.uploads.mu.Unlock()
		return
	}
	e.uploads.swept = now
	e.uploads.mu.Unlock()
	e.sweepUploads(ctx)
}

// sweepUploads removes the uploads with no progress for UploadMaxAge, and
// the folders of uploads a crash left without a state. An upload a
// request holds is left alone (it is making progress, or it is being
// created), and one is looked at again once held, so that the sweep never
// removes bytes from under a request.
func (e *Engine) sweepUploads(ctx context.Context) {
	before := e.cfg.Now().Add(-UploadMaxAge)
	ups, err := e.media.Uploads()
	if err != nil {
		e.logger.Warn("engine: sweep the uploads with no progress", "err", err)
		return
	}
	for _, u := range ups {
		if ctx.Err() != nil {
			return
		}
		if !u.Updated.Before(before) {
			continue
		}
		release, ok := e.uploads.acquire(u.ID, "", nil)
		if !ok {
			continue
		}
		if cur, err := e.media.LoadUpload(u.ID); err == nil && !cur.Updated.Before(before) {
			release()
			continue
		}
		err := e.media.RemoveUpload(u.ID)
		release()
		if err != nil {
			e.logger.Warn("engine: sweep the uploads with no progress", "media", u.ID, "err", err)
			continue
		}
		e.logger.Info("engine: removed an upload with no progress", "media", u.ID, "since", u.Updated, "bytes", u.Offset)
	}
}
