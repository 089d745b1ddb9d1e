package engine

import (
	"context"
	"sync"
	"time"
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

// wait waits until the mirror holds every op up to seq, ctx is done, or
// maxFoldWait has passed.
func (f *foldMark) wait(ctx context.Context, seq uint64) {
	timer := time.NewTimer(maxFoldWait)
	defer timer.Stop()
	for {
		f.mu.Lock()
		if f.ch == nil {
			f.ch = make(chan struct{})
		}
		done, ch := f.seq >= seq, f.ch
		f.mu.Unlock()
		if done {
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

// awaitFold makes a read of the mirror see every op the log shows now.
func (e *Engine) awaitFold(ctx context.Context) {
	if e.broken.Load() != nil {
		return // the fold failed: nothing more will come until a reopen
	}
	l := e.opLog()
	if seq := l.LastSeq(); !e.folded.reached(seq) {
		l.FoldNow() // the folder may be gathering more: fold now
		e.folded.wait(ctx, seq)
	}
}

// reached reports whether the mirror holds every op up to seq.
func (f *foldMark) reached(seq uint64) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.seq >= seq
}
