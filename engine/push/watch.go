package push

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/sparkfamily/spark/engine/client"
)

// Defaults of Options.StallAfter and Options.GiveUpAfter.
const (
	DefaultStallAfter  = time.Minute
	DefaultGiveUpAfter = 10 * time.Minute
)

// ErrStalled matches (errors.Is) the error of a push that stopped because
// the source or the target moved no byte for Options.StallAfter while the
// push waited on it. The checkpoint is kept: the next run goes on.
var ErrStalled = errors.New("push: an engine stopped answering")

// ErrGaveUp matches (errors.Is) the error of a push that stopped because
// the source or the target answered only passing trouble (5xx, 429, a
// connection that fails) for Options.GiveUpAfter. The checkpoint is kept:
// the next run goes on.
var ErrGaveUp = errors.New("push: an engine kept failing")

// peerError is ErrStalled or ErrGaveUp, in words a person can act on. It
// does not unwrap to the last trouble, which no caller may take for the
// engine's final word (it is passing) nor ask again.
type peerError struct {
	kind  error         // ErrStalled or ErrGaveUp
	peer  string        // which engine, in words
	after time.Duration // the bound that ended it
	last  error         // ErrGaveUp: the last trouble
	asked time.Duration // ErrGaveUp: a Retry-After past the bound, or 0
}

func (e *peerError) Error() string {
	const act = "check that it is running and can be reached"
	switch {
	case e.kind == ErrStalled:
		return fmt.Sprintf("%s moved no byte for %s: it may be stuck, or the link to it down; %s", e.peer, e.after, act)
	case e.asked > 0:
		return fmt.Sprintf("%s answers only with trouble and asks to be left alone for %s, longer than a push waits (%s; the last answer: %v); %s",
			e.peer, e.asked.Round(time.Second), e.after, e.last, act)
	}
	return fmt.Sprintf("%s answered only with trouble for %s (the last: %v); %s", e.peer, e.after, e.last, act)
}

func (e *peerError) Is(target error) bool { return target == e.kind }

// Names of the engines in the push's errors (see peerName).
const (
	sourceEngine = "the engine the moments come from"
	targetEngine = "the engine the moments go to"
)

// peerName is which engine what is, with its address when it has one.
func peerName(what string, of any) string {
	if b, ok := of.(interface{ BaseURL() string }); ok && b.BaseURL() != "" {
		return what + " (" + b.BaseURL() + ")"
	}
	return what
}

// limits are the bounds of the requests to one engine.
type limits struct {
	peer string // the engine, in words (peerName)
	// stallAfter ends a request (not asked again) that moves no byte for
	// so long while it is under way; giveUpAfter ends one that met only
	// passing trouble for so long. Zero: no bound.
	stallAfter, giveUpAfter time.Duration
}

// watch ends the requests of one call to an engine (all its attempts, and
// the reading of an answer's body) when, while one of them is under way,
// no byte moves for the bound: it cancels their context with a peerError.
// NewHTTPClient's client tells it of each byte (client.WithProgress); of
// a Target that is no HTTP client, only the start and end of each attempt
// are seen.
type watch struct {
	lim    limits
	cancel context.CancelCauseFunc

	mu      sync.Mutex
	active  int       // attempts and reads under way
	last    time.Time // when a byte last moved, or an attempt or read began or ended
	timer   *time.Timer
	stalled error
	done    bool
}

// watching starts a watch of the calls made with the context it returns;
// stop it when they are done.
func watching(ctx context.Context, lim limits) (context.Context, *watch) {
	ctx, cancel := context.WithCancelCause(ctx)
	w := &watch{lim: lim, cancel: cancel, last: time.Now()}
	if lim.stallAfter > 0 {
		w.mu.Lock()
		w.timer = time.AfterFunc(lim.stallAfter, w.check)
		w.mu.Unlock()
	}
	ctx = client.WithProgress(ctx, w.moved)
	return context.WithValue(ctx, watchKey{}, w), w
}

type watchKey struct{}

// watchOf is the watch of the calls made with ctx, or nil.
func watchOf(ctx context.Context) *watch {
	w, _ := ctx.Value(watchKey{}).(*watch)
	return w
}

// begin and end bracket an attempt or a read: only then is the engine
// waited on, and a stall counted. A nil watch watches nothing.
func (w *watch) begin() {
	if w == nil {
		return
	}
	w.mu.Lock()
	w.active++
	w.last = time.Now()
	w.mu.Unlock()
}

func (w *watch) end() {
	if w == nil {
		return
	}
	w.mu.Lock()
	w.active--
	w.last = time.Now()
	w.mu.Unlock()
}

// moved notes that bytes moved.
func (w *watch) moved() {
	w.mu.Lock()
	w.last = time.Now()
	w.mu.Unlock()
}

// check fires the watch when an attempt or read has waited stallAfter
// since the last byte; else it looks again when that could be.
func (w *watch) check() {
	w.mu.Lock()
	if w.done || w.stalled != nil {
		w.mu.Unlock()
		return
	}
	idle := time.Since(w.last)
	if w.active == 0 || idle < w.lim.stallAfter {
		w.timer.Reset(max(w.lim.stallAfter-idle, w.lim.stallAfter/8))
		w.mu.Unlock()
		return
	}
	err := &peerError{kind: ErrStalled, peer: w.lim.peer, after: w.lim.stallAfter}
	w.stalled = err
	w.mu.Unlock()
	w.cancel(err)
}

// err is the watch's peerError once it fired, else nil.
func (w *watch) err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.stalled
}

// stop ends the watch and the context of its calls.
func (w *watch) stop() {
	w.mu.Lock()
	w.done = true
	if w.timer != nil {
		w.timer.Stop()
	}
	w.mu.Unlock()
	w.cancel(nil)
}
