package engine

import (
	"context"
	"sync"
	"time"

	"github.com/sparkfamily/spark/engine/api"
)

// maxFoldWait bounds how long a read waits for the mirror to fold what the
// log already shows; past it (a fold that failed, say) the read answers
// from the mirror as it is.
const maxFoldWait = 5 * time.Second

// foldMark is how far the mirror has folded the log. The log shows a batch
// (Scan, LastSeq, GET /v1/ops) once it is fsynced, a moment before its fold
// commits; a reader who learned of an op from the log and then reads the
// mirror (the app's watcher does: ops, then the moment they touch) waits
// here for that fold, so that it never reads the state before it.
type foldMark struct {
	mu  sync.Mutex
	seq uint64
	ch  chan struct{} // closed and replaced when seq grows
}

// set records that the mirror holds every op up to seq.
func (f *foldMark) set(seq uint64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.ch == nil {
		f.ch = make(chan struct{})
	}
	if seq > f.seq {
		f.seq = seq
		close(f.ch)
		f.ch = make(chan struct{})
	}
}

// wake wakes the waiters without a new seq: a fold failed, and they
// need not wait for one that will not come.
func (f *foldMark) wake() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.ch != nil {
		close(f.ch)
		f.ch = make(chan struct{})
	}
}

// wait waits until the mirror holds every op up to seq, ctx is done,
// maxFoldWait has passed or stop reports true (checked at each wake).
func (f *foldMark) wait(ctx context.Context, seq uint64, stop func() bool) {
	timer := time.NewTimer(maxFoldWait)
	defer timer.Stop()
	for {
		f.mu.Lock()
		if f.ch == nil {
			f.ch = make(chan struct{})
		}
		done, ch := f.seq >= seq, f.ch
		f.mu.Unlock()
		if done || stop() {
			return
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return
		case <-timer.C:
			return
		}
	}
}

// awaitFold makes a read of the mirror see every op the log shows now: it
// waits for their fold. While the mirror cannot be written and lacks some
// of them (creates answered at their fsync whose fold failed), the read is
// refused with 503 rather than answered without them; it is answered again
// once the mirror has caught up (health.go). A read whose wait ran out for
// another reason (maxFoldWait) answers from the mirror as it is.
func (e *Engine) awaitFold(ctx context.Context) error {
	l := e.opLog()
	seq := l.LastSeq()
	if e.folded.reached(seq) {
		return nil
	}
	if e.broken.Load() == nil {
		l.FoldNow() // the folder may be gathering more: fold now
		e.folded.wait(ctx, seq, func() bool { return e.broken.Load() != nil })
		if e.folded.reached(seq) {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	if e.broken.Load() == nil {
		return nil
	}
	if f := e.currentFailure(); f != nil {
		e.kickProbe()
		return unavailable(f)
	}
	ae := api.Errorf(api.CodeUnavailable, "the engine cannot write its mirror and it lacks ops already written to its log; try again later")
	ae.RetryAfter = writeRetryAfter
	return ae
}

// reached reports whether the mirror holds every op up to seq.
func (f *foldMark) reached(seq uint64) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.seq >= seq
}
