package engine

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/oplog"
	"github.com/sparkfamily/spark/internal/diskfull"
	"github.com/sparkfamily/spark/internal/version"
)

// The engine's write health.
//
// A write that fails for the data folder's sake (a full disk, a quota, an
// I/O error; a failed fold into the mirror) marks the engine unhealthy:
// GET /v1/health answers ok false with the reason, and every write is
// refused up front with 503 unavailable and a Retry-After, which clients
// treat as passing trouble. Reads go on being served from the mirror and
// the log as they are, except those that must see an op the log has
// answered and the mirror lacks (a create answered at its fsync whose
// fold failed): those get 503 too until the mirror has caught up
// (awaitFold). Meanwhile a prober tries a small test write in the
// data folder every few seconds (and at once, at most every half second,
// when a write or a health check comes in); once one succeeds, the log is
// reopened if it had stopped taking writes (which reads it again from disk,
// so a torn tail of the failed write is dealt with as at a start), the
// mirror folds whatever the log holds that it lacks, and writes are taken
// again. Nothing answered before the failure is touched: the log's ops
// stay as they are and the mirror only catches up.
const (
	// writeRetryAfter is the Retry-After of a write refused while the
	// engine cannot write.
	writeRetryAfter = 15 * time.Second
	// probeEvery is how often the prober tries a test write.
	probeEvery = 2 * time.Second
	// probeGap is the least time between two tries.
	probeGap = 500 * time.Millisecond
	// probeSize is the size of the test write: more than one record of the
	// log, so that a disk with a few bytes free does not pass for healed.
	probeSize = 64 << 10
)

// writeHealth is the state of the engine's writes. Its zero value is
// healthy.
type writeHealth struct {
	mu      sync.Mutex
	failure *writeFailure // nil while writes work
	kick    chan struct{} // wakes the prober; made with it
	stop    chan struct{} // closed by Close
	done    chan struct{} // closed when the prober returns; nil when none runs
	closed  bool
}

// writeFailure is why the engine does not take writes. It is replaced,
// never changed, so the prober can tell whether the failure it healed is
// still the current one.
type writeFailure struct {
	reason string
	since  time.Time
	// reopen says the log refuses appends until it is reopened: its write,
	// fsync or fold failed.
	reopen bool
}

// opLog returns the log, which recovering from a failed write replaces.
func (e *Engine) opLog() *oplog.Log {
	e.logMu.RLock()
	defer e.logMu.RUnlock()
	return e.log
}

// Health reports whether the engine takes writes (and why not), its
// version and the seq of the last op. It first waits for the fold of what
// the log already answered, so that a fold failing behind an answered
// create is told, not a moment later.
func (e *Engine) Health(ctx context.Context) api.Health {
	_ = e.awaitFold(ctx) // its failure is told below
	h := api.Health{OK: true, Version: version.Version, Seq: e.opLog().LastSeq()}
	h.EngineID, _ = e.ID() // [extension]; "" if the folder cannot hold it
	// [extension] Whether the readings asked for will be read.
	h.Pippa = &api.PippaHealth{Seated: e.run.seated()}
	if f := e.currentFailure(); f != nil {
		h.OK, h.Reason = false, f.message()
		e.kickProbe()
	}
	return h
}

// LastSeq is the seq of the last op logged: what an off-site copy's
// Keeper compares the copy with.
func (e *Engine) LastSeq() uint64 { return e.opLog().LastSeq() }

func (f *writeFailure) message() string {
	return fmt.Sprintf("the engine cannot write to its data folder (%s) since %s; it keeps answering reads, and takes writes again by itself once a test write succeeds",
		f.reason, f.since.UTC().Format(time.RFC3339))
}

func (e *Engine) currentFailure() *writeFailure {
	e.health.mu.Lock()
	defer e.health.mu.Unlock()
	return e.health.failure
}

// writable refuses a write while the engine cannot write.
func (e *Engine) writable() error {
	f := e.currentFailure()
	if f == nil {
		return nil
	}
	e.kickProbe()
	return unavailable(f)
}

// unavailable is the answer to a write while f holds.
func unavailable(f *writeFailure) error {
	ae := api.Errorf(api.CodeUnavailable, "%s; try again later", f.message())
	ae.RetryAfter = writeRetryAfter
	return ae
}

// appendFailed sorts out an Append of log l that failed: a canceled
// request, a closing engine and an invalid record are answered as such;
// anything else is a write failure (the log now refuses appends until it
// is reopened).
func (e *Engine) appendFailed(ctx context.Context, l *oplog.Log, op string, err error) error {
	switch {
	case ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)):
		return err
	case errors.Is(err, oplog.ErrClosed):
		if l != e.opLog() {
			// Replaced by a recovery while this write waited.
			return api.Errorf(api.CodeUnavailable, "the engine was recovering from a failed write; try again in a moment")
		}
		return api.Errorf(api.CodeUnavailable, "the engine is shutting down; try again in a moment")
	case errors.Is(err, oplog.ErrInvalid):
		return fmt.Errorf("engine: append %s: %w", op, err)
	}
	if broken := e.broken.Load(); broken != nil {
		err = *broken
	}
	return e.writeFailed(l, fmt.Errorf("append %s: %w", op, err))
}

// writeFailed marks the engine unhealthy after a failed write (of log l,
// nil when the log was not written) and returns the write's answer.
func (e *Engine) writeFailed(l *oplog.Log, err error) error {
	h := &e.health
	h.mu.Lock()
	if l != nil && l != e.opLog() {
		// The log that failed was already replaced by a recovery.
		h.mu.Unlock()
		return api.Errorf(api.CodeUnavailable, "the engine was recovering from a failed write; try again in a moment")
	}
	f := h.failure
	if f == nil || (l != nil && !f.reopen) {
		f = &writeFailure{reason: describe(err), since: time.Now(), reopen: l != nil || (f != nil && f.reopen)}
		if h.failure != nil {
			f.since = h.failure.since
		}
		first := h.failure == nil
		h.failure = f
		if first {
			e.logger.Error("engine: a write failed; the engine stops taking writes and keeps serving reads until a test write succeeds",
				"reason", f.reason, "err", err)
		}
		e.startProbeLocked()
	}
	h.mu.Unlock()
	return unavailable(f)
}

// describe says what went wrong in a few words, without paths: the error
// the operating system or SQLite gave.
func describe(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		if diskfull.Is(errno) {
			return "the disk is full: " + errno.Error()
		}
		return errno.Error()
	}
	var coded interface{ Code() int }
	if errors.As(err, &coded) {
		switch coded.Code() & 0xff { // SQLite's primary result codes
		case 13: // SQLITE_FULL
			return "the disk is full"
		case 10: // SQLITE_IOERR
			return "an I/O error while the mirror was written"
		case 8: // SQLITE_READONLY
			return "the mirror cannot be written"
		}
	}
	return "a write failed; the engine's log has the details"
}

// kickProbe asks the prober, if one runs, to try now.
func (e *Engine) kickProbe() {
	e.health.mu.Lock()
	defer e.health.mu.Unlock()
	if e.health.kick != nil {
		select {
		case e.health.kick <- struct{}{}:
		default:
		}
	}
}

// startProbeLocked starts the prober unless it runs or the engine closed.
// health.mu is held.
func (e *Engine) startProbeLocked() {
	h := &e.health
	if h.done != nil || h.closed {
		return
	}
	if h.stop == nil {
		h.stop = make(chan struct{})
	}
	h.kick = make(chan struct{}, 1)
	h.done = make(chan struct{})
	go e.probe(h.stop, h.kick, h.done)
}

// probe tries to recover until the engine is healthy or closes.
func (e *Engine) probe(stop <-chan struct{}, kick <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	t := time.NewTimer(probeEvery)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		case <-kick:
		}
		if e.recover(stop) {
			h := &e.health
			h.mu.Lock()
			if h.failure == nil {
				h.kick, h.done = nil, nil
				h.mu.Unlock()
				return
			}
			// Another write failed since: keep trying.
			h.mu.Unlock()
		}
		select {
		case <-stop:
			return
		case <-time.After(probeGap):
		}
		t.Reset(probeEvery)
	}
}

// recover tries a test write and, if it succeeds, reopens the log when it
// needs it and takes writes again. It reports whether the engine is
// healthy.
func (e *Engine) recover(stop <-chan struct{}) bool {
	h := &e.health
	h.mu.Lock()
	f := h.failure
	h.mu.Unlock()
	if f == nil {
		return true
	}
	if err := e.testWrite(); err != nil {
		e.logger.Debug("engine: the test write failed; writes stay refused", "err", err)
		return false
	}
	if f.reopen {
		ctx, cancel := context.WithCancel(context.Background())
		go func() {
			select {
			case <-stop:
				cancel()
			case <-ctx.Done():
			}
		}()
		err := e.reopenLog(ctx)
		cancel()
		if err != nil {
			e.logger.Warn("engine: the test write succeeded but the log could not be reopened; writes stay refused", "err", err)
			return false
		}
	}
	h.mu.Lock()
	if h.failure != f {
		// Another write failed meanwhile: keep trying.
		h.mu.Unlock()
		return false
	}
	h.failure = nil
	h.mu.Unlock()
	e.logger.Info("engine: writes work again", "down_since", f.since, "down_for", time.Since(f.since).Round(time.Second))
	// Turns whose outcome could not be logged meanwhile are asked again.
	if open, err := e.mirror.OpenTurns(context.Background()); err != nil {
		e.logger.Warn("engine: list the turns left unfinished after recovering", "err", err)
	} else {
		e.run.enqueue(open...)
	}
	return true
}

// testWrite writes, fsyncs and removes probeSize bytes in the data folder.
func (e *Engine) testWrite() (err error) {
	var b [8]byte
	rand.Read(b[:])
	p := filepath.Join(e.dir, ".write-test-"+hex.EncodeToString(b[:]))
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	defer func() {
		f.Close()
		if rerr := os.Remove(p); err == nil {
			err = rerr
		}
	}()
	if _, err := f.Write(make([]byte, probeSize)); err != nil {
		return err
	}
	return f.Sync()
}

// reopenLog replaces a log that refuses appends with the same file opened
// again, once the mirror has folded what the file holds. The old log takes
// no appends meanwhile, and writes are refused up front, so only this
// writes the mirror.
func (e *Engine) reopenLog(ctx context.Context) error {
	l, err := e.openLog(ctx)
	if err != nil {
		return err
	}
	if err := e.catchUp(ctx, l); err != nil {
		l.Close()
		return err
	}
	e.logMu.Lock()
	old := e.log
	e.log = l
	e.logMu.Unlock()
	if err := old.Close(); err != nil {
		e.logger.Warn("engine: close the log that had failed", "err", err)
	}
	e.broken.Store(nil)
	return nil
}

// stopProbe stops the prober; Close calls it before it closes the stores.
func (e *Engine) stopProbe() {
	h := &e.health
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return
	}
	h.closed = true
	done := h.done
	if h.stop != nil {
		close(h.stop)
	}
	h.mu.Unlock()
	if done != nil {
		<-done
	}
}

// readTracker remembers whether reading an upload failed, to tell a client
// that stopped sending from a disk that stopped taking bytes.
type readTracker struct {
	r   io.Reader
	err error
}

func (t *readTracker) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if err != nil && err != io.EOF {
		t.err = err
	}
	return n, err
}

// mediaFailed sorts out a failure to stage or store an upload: the
// client's (its body stopped, or its request ended) is returned as it is;
// anything else is a write failure.
func (e *Engine) mediaFailed(ctx context.Context, body *readTracker, err error) error {
	if body.err != nil || ctx.Err() != nil {
		return err
	}
	return e.writeFailed(nil, err)
}
