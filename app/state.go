package app

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sparkfamily/spark/app/replica"
	"github.com/sparkfamily/spark/app/view"
	"github.com/sparkfamily/spark/engine/client"
	"github.com/sparkfamily/spark/outbox"
)

// What the bound methods work with (the engine chosen, its client, the
// family engine's replica, the prefs, the outbox, the data folder) is one
// state: a value never changed once published, held by App.cur. A reader
// loads it once per call and uses only that one, so no call ever mixes
// the engine of before a switch with the prefs of after it. Every change
// (Startup, a switch of engine, Pippa or the cache limit set, Shutdown)
// goes through App.change: one at a time, it builds a whole new state from
// the current one and publishes it with one atomic store.

// EngineSwitched is EventEngine's data: the engine now used.
type EngineSwitched struct {
	Engine string `json:"engine"` // EngineLocal or EngineRemote
	URL    string `json:"url"`
}

// state is one snapshot of the app (see above). Its fields are never
// written after App.change published it; the objects they point to are
// safe for concurrent use.
type state struct {
	shell   Shell
	dataDir string   // "" until Startup chose it
	problem *UIError // why Spark could not start: a start code (errors.go), the window words it
	prefs   prefs
	ob      *outbox.Outbox // nil until opened, and after Shutdown
	tiles   *tileCache     // the tiles kept on disk; nil until opened, or if it could not be
	local   *LocalEngine   // the embedded engine, while Spark uses it
	cl      *client.Client // the engine chosen; nil until connected
	target  outbox.Target  // where the outbox sends: the engine chosen
	// rep is this computer's copy of the family engine, once opened: it
	// stays open after a switch back to this computer's engine, and is
	// read only while Spark uses the family engine (familyReplica).
	rep *replica.Replica
	// sync is where the sync of the family engine chosen stands: a new one
	// with each switch, so a sync of the engine before never speaks for
	// this one. nil with the engine on this computer.
	sync *syncState
	// me is whom the engine chosen takes Spark's token for (viewer.go):
	// nil until asked, and, after a switch, of the engine before until
	// asked again (state.viewer checks).
	me *learned
}

// remote reports whether Spark uses a family engine.
func (s *state) remote() bool { return s.prefs.Engine == EngineRemote }

// client returns the chosen engine's client, or ErrNotReady.
func (s *state) client() (*client.Client, error) {
	if s.cl == nil {
		return nil, ErrNotReady
	}
	return s.cl, nil
}

// queue returns the outbox, or ErrNotReady.
func (s *state) queue() (*outbox.Outbox, error) {
	if s.ob == nil {
		return nil, ErrNotReady
	}
	return s.ob, nil
}

// token is the chosen engine's bearer token.
func (s *state) token() string { return s.target.Token }

// familyReplica returns the replica when Spark uses a family engine and
// keeps its copy (whether or not that copy caught up yet).
func (s *state) familyReplica() *replica.Replica {
	if !s.remote() || s.cl == nil {
		return nil
	}
	return s.rep
}

// readsReplica returns the replica when the window reads from it: Spark
// uses a family engine, and the replica holds that engine's copy.
func (s *state) readsReplica() *replica.Replica {
	rep := s.familyReplica()
	if rep == nil || s.sync == nil || !s.sync.isTrusted() {
		return nil
	}
	return rep
}

// corpus returns what the window reads: the replica when Spark uses a
// family engine and its replica holds that engine's copy, else the engine
// itself (before the first sync of a family engine just chosen, say).
func (s *state) corpus() (view.Corpus, error) {
	if s.cl == nil {
		return nil, ErrNotReady
	}
	if rep := s.readsReplica(); rep != nil {
		return view.ReplicaCorpus{Replica: rep, Client: s.cl}, nil
	}
	return view.EngineCorpus{Client: s.cl}, nil
}

// waitsFor is what a write not sent yet, of which nothing more is known,
// waits for: the engine chosen.
func (s *state) waitsFor() string { return s.waitsOf(nil) }

// waitsOf is what w, not sent yet, waits for: Dad, when parked; the
// family engine to be back, while w waits because it did not answer
// (outbox Write.AwaitsEngine) or Spark last found it away (the sync
// line's offline); else nothing but its turn: it is being sent now, and
// the window says so rather than "when the family engine is back" beside
// an engine that answers. With the engine on this computer, in a moment.
// nil is a write of which nothing is known yet: the engine chosen.
func (s *state) waitsOf(w *outbox.Write) string {
	switch {
	case w != nil && w.State == outbox.Parked:
		return WaitsParked
	case !s.remote():
		return WaitsLocal
	case w != nil && !w.AwaitsEngine && !s.engineAway():
		return WaitsSending
	}
	return WaitsFamily
}

// engineAway reports whether Spark last found the family engine away:
// the sync line says offline (a sync, or the window's check, could not
// reach it).
func (s *state) engineAway() bool {
	if s.sync == nil {
		return false
	}
	s.sync.mu.Lock()
	defer s.sync.mu.Unlock()
	return s.sync.offline != ""
}

// engineAnswered tells the outbox that the engine chosen answered just
// now (a health check, a sync): whatever waits in it because the engine
// did not answer is sent at once (outbox.EngineAnswered), not at the end
// of its back-off.
func (s *state) engineAnswered() {
	if s.ob != nil && s.cl != nil {
		s.ob.EngineAnswered(s.target.URL)
	}
}

// state returns the current state: load it once per call.
func (a *App) state() *state { return a.cur.Load() }

// The helpers below load the state for a caller that needs one thing of
// it (a binding that reads only the outbox, the watcher's tick).

// client returns the current engine's client, or ErrNotReady.
func (a *App) client() (*client.Client, error) { return a.state().client() }

// queue returns the outbox, or ErrNotReady.
func (a *App) queue() (*outbox.Outbox, error) { return a.state().queue() }

// token is the current engine's bearer token.
func (a *App) token() string { return a.state().token() }

// corpus returns what the window reads now (state.corpus).
func (a *App) corpus() (view.Corpus, error) { return a.state().corpus() }

// change makes the next state from the current one with f and publishes
// it, one change at a time; f returning an error publishes nothing. After
// the store, whatever the old state held that the new one no longer does
// (the engine on this computer, after a switch to the family engine) is
// closed. f may start things (an engine): it closes them itself when it
// fails.
func (a *App) change(f func(cur *state) (*state, error)) (*state, error) {
	a.switchMu.Lock()
	defer a.switchMu.Unlock()
	cur := a.cur.Load()
	next, err := f(cur)
	if err != nil {
		return cur, err
	}
	if next.ob != nil && next.cl != nil && next.target != cur.target {
		next.ob.SetTarget(next.target)
	}
	a.cur.Store(next)
	if cur.local != nil && next.local != cur.local {
		a.stopLocal(cur)
	}
	return next, nil
}

// syncState is where the sync of one family engine, chosen once, stands.
type syncState struct {
	mu  sync.Mutex
	ran bool // a sync has ended since the engine was chosen
	// trusted is true when the replica holds the chosen engine's copy: it
	// caught up with it once, in this run or (not switched since) a
	// previous one. Until then the window reads the engine itself.
	trusted  bool
	syncing  bool
	offline  string // why the last sync could not reach the engine: a UIError code
	problem  string // why the sync stopped, a SyncStop code; "" when it runs
	openFail string // SyncStopNoCopy when the replica could not be opened
	detail   string // the technical text behind offline, problem or openFail
	// goodBegan is when the last sync that ended well began: everything
	// the outbox delivered before it is in the replica. What it delivered
	// since may not be, so the reads keep showing it from the outbox
	// (sentMoments, heldWrites) and the window never loses a capture or
	// flips a caption back while the sync catches up.
	goodBegan time.Time
	began     time.Time // when the sync under way began
}

func (s *syncState) isTrusted() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.trusted
}

func (s *syncState) begin() {
	s.mu.Lock()
	s.syncing, s.began = true, time.Now()
	s.mu.Unlock()
}

// logSwitch is the App's log handler. What it writes to is set when the
// data folder is open (openLog) and unset at Shutdown, so App.log itself
// is made once, in New, and never changes.
type logSwitch struct {
	to *atomic.Pointer[slog.Handler]
	// with adds what Logger.With and WithGroup added, in order, to the
	// handler written to now.
	with []func(slog.Handler) slog.Handler
}

func newLogSwitch(h slog.Handler) logSwitch {
	s := logSwitch{to: new(atomic.Pointer[slog.Handler])}
	s.set(h)
	return s
}

func (s logSwitch) set(h slog.Handler) { s.to.Store(&h) }

func (s logSwitch) current() slog.Handler {
	h := *s.to.Load()
	for _, w := range s.with {
		h = w(h)
	}
	return h
}

func (s logSwitch) Enabled(ctx context.Context, l slog.Level) bool {
	return s.current().Enabled(ctx, l)
}

func (s logSwitch) Handle(ctx context.Context, r slog.Record) error {
	return s.current().Handle(ctx, r)
}

func (s logSwitch) WithAttrs(as []slog.Attr) slog.Handler {
	return s.plus(func(h slog.Handler) slog.Handler { return h.WithAttrs(as) })
}

func (s logSwitch) WithGroup(name string) slog.Handler {
	return s.plus(func(h slog.Handler) slog.Handler { return h.WithGroup(name) })
}

func (s logSwitch) plus(w func(slog.Handler) slog.Handler) logSwitch {
	s.with = append(s.with[:len(s.with):len(s.with)], w)
	return s
}
