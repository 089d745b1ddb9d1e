package app

import (
	"cmp"
	"context"
	"errors"
	"path/filepath"
	"sync"
	"time"

	"github.com/sparkfamily/spark/app/replica"
	"github.com/sparkfamily/spark/app/view"
	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/internal/retry"
	"github.com/sparkfamily/spark/outbox"
)

// The replica of the family engine, kept by the app while it runs.
//
// When Spark uses a family engine, the window reads from a replica of it in
// DATA/replica (package replica; view/corpus.go), and a sync loop keeps it up to
// date by itself: at start, after every step the outbox delivers, and on a
// timer (syncBusy while a reading is queued or running, syncIdle when
// not; after a sync that could not reach the engine, a back-off with
// jitter no longer than syncIdle, or the engine's Retry-After). A sync
// that brings ops sends the "moment" event for each moment they touched,
// read from the replica, so tiles and the open moment update live; every
// sync sends a "sync" event with the SyncStatus. A page of ops that does
// not fold, or an engine whose log no longer continues the replica, stops
// the sync until Dad rebuilds the copy (Sync.Rebuild).
//
// With the engine on this computer nothing of this runs: its own mirror is
// the copy, and the watcher (watch.go) sends the "moment" events.

// How often the replica is synced without a reason: a few seconds while
// Pippa is reading something, longer when idle. Variables for the tests.
var (
	syncBusy   = 3 * time.Second
	syncIdle   = 15 * time.Second
	syncSettle = 200 * time.Millisecond // kicks closer than this make one sync
)

// ReplicaDir is the replica's folder under the data folder.
const ReplicaDir = "replica"

// The states of SyncStatus (mirrored in frontend/src/syncstatus.ts).
const (
	SyncLocal    = "local"    // the engine on this computer: nothing to sync
	SyncStarting = "starting" // no sync has ended yet
	SyncUpToDate = "uptodate" // the last sync reached the family engine's head
	SyncOffline  = "offline"  // the family engine could not be reached
	SyncProblem  = "problem"  // the sync stopped: Problem says why; Rebuild mends it
)

// Why the sync stopped: SyncStatus.Problem in State "problem", worded by
// the window (frontend/src/words.ts's syncProblemWords).
const (
	// SyncStopMustRebuild: the family engine's log no longer continues
	// this computer's copy (it was restored from an older backup, say).
	SyncStopMustRebuild = "must_rebuild"
	// SyncStopUnreadable: the engine sent what this Spark can't read.
	SyncStopUnreadable = "unreadable"
	// SyncStopNoCopy: the copy could not be opened on this computer.
	SyncStopNoCopy = "no_copy"
)

// SyncStatus is what the status bar and Settings show of the replica.
type SyncStatus struct {
	State string `json:"state"` // one of the Sync* states
	// AsOf is when this computer's copy last caught up with the family
	// engine (RFC 3339), "" if never.
	AsOf string `json:"as_of"`
	// Syncing is true while a sync runs.
	Syncing bool `json:"syncing"`
	// Problem says why the sync stopped (State "problem": a SyncStop
	// code) or could not reach the engine (State "offline": the UIError
	// code of why, CodeOffline or CodeUnauthorized, say), as a code the
	// window words; "" otherwise.
	Problem string `json:"problem"`
	// Detail is the technical text behind Problem, for "Details".
	Detail string `json:"detail"`
	// CopyBytes and CacheBytes are the small copies' bytes on this
	// computer and their limit.
	CopyBytes  int64 `json:"copy_bytes"`
	CacheBytes int64 `json:"cache_bytes"`
}

// Sync is the bound struct of the replica: its status and its rebuild.
type Sync struct{ a *App }

// Status returns where the replica stands.
func (s *Sync) Status() (SyncStatus, error) { return syncStatus(s.a.state()), nil }

// Rebuild drops this computer's copy of the family engine and fetches it
// again from the start, then syncs on as usual.
func (s *Sync) Rebuild() (SyncStatus, error) {
	a := s.a
	st := a.state()
	rep := st.familyReplica()
	if rep == nil {
		return syncStatus(st), refused(CodeNoFamilyCopy, "")
	}
	// Shutdown stops it (ctx) and waits for it (busy) before closing the
	// replica.
	ctx, ok := a.loop.hold()
	if !ok {
		return syncStatus(st), ErrNotReady
	}
	defer a.loop.busy.Done()
	st.sync.begin()
	st.sync.mu.Lock()
	st.sync.trusted = false
	st.sync.mu.Unlock()
	res, err := rep.Rebuild(ctx, st.cl)
	if ctx.Err() != nil {
		return syncStatus(st), ErrNotReady
	}
	a.syncEnded(st, rep, res, err, true)
	return syncStatus(a.state()), nil
}

// Bounds of the small copies' limit that Settings takes, in GB.
const (
	minCacheGB = 0.1
	maxCacheGB = 10000.0
)

// SetCacheLimit sets how much room, in GB, the small copies of the family
// engine's photos may take on this computer (2 by default). A smaller
// limit removes the copies looked at least recently (they are fetched
// again when there is room); a larger one lets the next sync fetch those
// that did not fit.
func (s *Sync) SetCacheLimit(gb float64) (SyncStatus, error) {
	a := s.a
	if !(gb >= minCacheGB && gb <= maxCacheGB) {
		return syncStatus(a.state()), &UIError{Code: CodeBadCacheSize, Min: minCacheGB, Max: maxCacheGB}
	}
	n := int64(gb * (1 << 30))
	st, err := a.change(func(cur *state) (*state, error) {
		if cur.dataDir == "" {
			return nil, ErrNotReady
		}
		next := *cur
		next.prefs.CacheBytes = n
		if err := savePrefs(next.dataDir, next.prefs); err != nil {
			return nil, err
		}
		return &next, nil
	})
	if errors.Is(err, ErrNotReady) {
		return SyncStatus{}, err
	}
	if err != nil {
		return syncStatus(st), err
	}
	if st.rep != nil {
		if err := st.rep.Copies().SetBudget(n); err != nil {
			return syncStatus(st), err
		}
		a.kickSync()
	}
	return syncStatus(st), nil
}

// syncLoop runs the sync of the family engine's replica while Spark runs.
type syncLoop struct {
	kick chan struct{} // made by New: a kick before the loop runs waits for it

	mu   sync.Mutex
	ctx  context.Context // the loop's: ends at Shutdown; nil when it does not run
	stop context.CancelFunc
	done chan struct{}
	busy sync.WaitGroup // a Rebuild running

	// failures counts the syncs in a row that could not reach the family
	// engine. The loop's alone: no lock.
	failures int
}

func newSyncLoop() syncLoop { return syncLoop{kick: make(chan struct{}, 1)} }

// hold returns the loop's context and counts a Rebuild running, which
// Shutdown waits for; ok is false when the loop does not run. The caller
// calls busy.Done.
func (l *syncLoop) hold() (context.Context, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ctx == nil {
		return nil, false
	}
	l.busy.Add(1)
	return l.ctx, true
}

// heldSince is the time from which the outbox's deliveries may be
// missing from the replica: the start of the last sync that ended well in
// this run, or, before one has, ten minutes before the replica last caught
// up (a sync that began earlier is long over). Zero when Spark does not
// read a replica.
func heldSince(ctx context.Context, s *state) (time.Time, *replica.Replica) {
	rep := s.readsReplica()
	if rep == nil {
		return time.Time{}, nil
	}
	s.sync.mu.Lock()
	since := s.sync.goodBegan
	s.sync.mu.Unlock()
	if since.IsZero() {
		st, err := rep.State(ctx)
		if err != nil {
			return time.Time{}, nil
		}
		since = st.SyncedAt.Add(-10 * time.Minute)
	}
	return since, rep
}

// heldWrites returns the writes the outbox sent that the replica may not
// hold yet, in the order Dad made them.
func (a *App) heldWrites(ctx context.Context, s *state) []outbox.Write {
	since, rep := heldSince(ctx, s)
	ob, err := s.queue()
	if rep == nil || err != nil {
		return nil
	}
	ws, err := ob.SentWritesSince(ctx, since)
	if err != nil {
		a.log.Warn("read the outbox's sent writes", "err", err)
		return nil
	}
	// Only what went to the engine the replica copies.
	to := s.target.URL
	out := ws[:0]
	for _, w := range ws {
		if w.Target == to {
			out = append(out, w)
		}
	}
	return out
}

// sentMoments returns the captures the outbox delivered that the replica
// does not hold yet, newest first.
func (a *App) sentMoments(ctx context.Context, s *state) []view.Moment {
	since, rep := heldSince(ctx, s)
	ob, err := s.queue()
	if rep == nil || err != nil {
		return nil
	}
	es, err := ob.DeliveredSince(ctx, since)
	if err != nil {
		a.log.Warn("read the outbox's delivered captures", "err", err)
		return nil
	}
	to := s.target.URL
	var out []view.Moment
	for i := range es {
		if es[i].Target != to {
			continue // delivered to another engine: not the replica's
		}
		if _, err := rep.Moment(ctx, es[i].MomentID); err != nil {
			out = append(out, view.PendingView(&es[i]))
		}
	}
	view.SortNewestFirst(out)
	return out
}

// openReplica is connect's part when Spark uses a family engine: the
// replica (rep, or DATA/replica opened now) and the sync's state afresh,
// with a sync soon after a switch. A failure to open the replica is logged
// and shown in the status: the window then reads from the family engine.
func (a *App) openReplica(ctx context.Context, rep *replica.Replica, dataDir string, cacheBytes int64, switched bool) (*replica.Replica, *syncState) {
	st := &syncState{}
	if rep == nil {
		var err error
		rep, err = replica.Open(ctx, filepath.Join(dataDir, ReplicaDir), replica.Options{CacheBytes: cacheBytes, Logger: a.log.With("part", "replica")})
		if err != nil {
			a.log.Error("open the replica", "err", err)
			st.openFail, st.detail = SyncStopNoCopy, err.Error()
			return nil, st
		}
		// The copy of a previous run is the chosen engine's, unless Dad
		// switches now.
		if s, err := rep.State(ctx); err == nil && !s.SyncedAt.IsZero() && !switched {
			st.trusted = true
		}
	}
	if switched {
		a.kickSync()
	}
	return rep, st
}

// usesReplica reports whether the replica's sync sends the "moment"
// events: whenever Spark uses a family engine and keeps its replica.
func (a *App) usesReplica() bool { return a.state().familyReplica() != nil }

// kickSync asks for a sync soon; kicks pile up into one.
func (a *App) kickSync() {
	select {
	case a.loop.kick <- struct{}{}:
	default:
	}
}

// startSync runs the sync loop until stopSync.
func (a *App) startSync(ob *outbox.Outbox) {
	l := &a.loop
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stop != nil || ob == nil {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	l.ctx, l.stop, l.done = ctx, cancel, done
	events, unsubscribe := ob.Subscribe()
	go func() {
		defer close(done)
		defer unsubscribe()
		a.runSync(ctx, events)
	}()
	a.kickSync()
}

// stopSync stops the loop and waits for it, and for a Rebuild running.
func (a *App) stopSync() {
	l := &a.loop
	l.mu.Lock()
	stop, done := l.stop, l.done
	l.stop, l.ctx = nil, nil
	l.mu.Unlock()
	if stop != nil {
		stop()
		<-done
	}
	l.busy.Wait()
}

func (a *App) runSync(ctx context.Context, events <-chan outbox.Event) {
	timer := time.NewTimer(syncIdle)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			if !delivery(ev) {
				continue
			}
		case <-a.loop.kick:
		case <-timer.C:
		}
		// Let a burst of deliveries end before asking.
		settle := time.NewTimer(syncSettle)
	settling:
		for {
			select {
			case <-ctx.Done():
				settle.Stop()
				return
			case <-a.loop.kick:
			case _, ok := <-events:
				// One sync after the burst asks for whatever it delivered.
				if !ok {
					events = nil
				}
			case <-settle.C:
				break settling
			}
		}
		timer.Reset(a.syncOnce(ctx))
	}
}

// delivery reports whether an outbox event is a delivered step (its op is
// in the engine's log now: a reason to sync). A capture delivered stays on
// show until the sync brings it.
func delivery(ev outbox.Event) bool {
	return ev.Kind == outbox.EventStepDone || ev.Kind == outbox.EventDone
}

// syncOnce syncs the replica, unless Spark uses the engine on this
// computer or the sync is stopped by a problem, and returns how long to
// wait before the next.
func (a *App) syncOnce(ctx context.Context) time.Duration {
	st := a.state()
	a.learnViewer(ctx, st)
	rep := st.familyReplica()
	if rep == nil {
		return syncIdle
	}
	st.sync.mu.Lock()
	stopped := st.sync.problem != ""
	st.sync.mu.Unlock()
	if stopped {
		return syncIdle
	}
	st.sync.begin()
	res, err := rep.Sync(ctx, st.cl)
	if ctx.Err() != nil {
		return syncIdle
	}
	a.syncEnded(st, rep, res, err, false)
	if err == nil {
		st.engineAnswered()
	}
	if err != nil && !stopsSync(err) {
		a.loop.failures++
		return syncRetry(a.loop.failures, err, nil)
	}
	a.loop.failures = 0
	if busy, err := rep.Reading(ctx); err == nil && busy {
		return syncBusy
	}
	return syncIdle
}

// syncRetry is the wait before syncing again after failures syncs in a
// row could not reach the family engine: retry's full-jitter back-off over
// a window from syncBusy that doubles up to syncIdle, and never sooner
// than the engine's Retry-After. rnd is the back-off's Rand (nil: random).
func syncRetry(failures int, err error, rnd func() float64) time.Duration {
	var after time.Duration
	if ae, ok := api.AsError(err); ok {
		after = ae.RetryAfter
	}
	return retry.Backoff{Base: syncBusy, Cap: syncIdle, Rand: rnd}.Wait(failures, after)
}

// syncEnded records how a sync ended, and tells the window: the moments it
// changed, and the new status.
//
// st is the state the sync ran for: after a switch meanwhile, what it
// records is of the engine before, which no one reads any more.
func (a *App) syncEnded(st *state, rep *replica.Replica, res replica.Result, err error, rebuilt bool) {
	ss := st.sync
	ss.mu.Lock()
	ss.syncing, ss.ran = false, true
	switch {
	case err == nil:
		ss.offline, ss.problem, ss.detail, ss.trusted = "", "", "", true
		if !ss.began.IsZero() {
			ss.goodBegan = ss.began
		}
	case stopsSync(err):
		a.log.Error("the sync stopped", "err", err)
		ss.offline, ss.problem, ss.detail = "", syncProblem(err), err.Error()
	default:
		a.log.Info("the family engine can't be reached for a sync", "err", err)
		ue := toUIError(err)
		ss.offline, ss.detail = ue.Code, ue.Detail
		if rebuilt {
			ss.problem = ""
		}
	}
	ss.mu.Unlock()
	if a.state().sync != ss {
		return // switched meanwhile: EventEngine had every screen read again
	}
	if rebuilt || res.Reset {
		a.emit(EventMoment, MomentEvent{Kind: MomentKindMany})
	} else {
		a.emitChanged(rep, res.Moments)
	}
	a.emit(EventSync, syncStatus(a.state()))
}

// stopsSync reports an error that a sync again would only repeat: a page
// that does not fold, a log that no longer continues the copy, a small
// copy whose bytes are not the ones the log records.
func stopsSync(err error) bool {
	var ce *replica.ChecksumError
	return errors.Is(err, replica.ErrBadPage) || errors.Is(err, replica.ErrMustRebuild) || errors.As(err, &ce)
}

// syncProblem says why the sync stopped, as a code of SyncStatus.Problem.
func syncProblem(err error) string {
	if errors.Is(err, replica.ErrMustRebuild) {
		return SyncStopMustRebuild
	}
	return SyncStopUnreadable
}

// emitChanged sends a "moment" event for each moment, as the replica holds
// it now (MomentKindMany past watchMany).
func (a *App) emitChanged(rep *replica.Replica, ids []string) {
	if len(ids) == 0 {
		return
	}
	a.emitMoments(context.Background(), ids, rep.Moment)
}

// engineSeen is the status bar's word on the family engine (Settings.Status
// asked it just now): unreachable, or refusing Spark's key, the sync line
// says offline at once instead of the last sync's "Up to date", so the bar
// never says both; reachable again while the line says offline, a sync
// runs now rather than at the next tick. code is why it can't be used
// (CodeOffline, CodeUnauthorized).
func (a *App) engineSeen(st *state, ok bool, code string) {
	if st.sync == nil {
		return
	}
	st.sync.mu.Lock()
	offline, problem := st.sync.offline, st.sync.problem
	changed := !ok && offline == "" && problem == ""
	if changed {
		st.sync.offline, st.sync.detail = code, ""
	}
	st.sync.mu.Unlock()
	switch {
	case changed:
		a.emit(EventSync, syncStatus(a.state()))
	case ok && offline != "":
		a.kickSync()
	}
}

// syncStatus returns where the replica of st's engine stands.
func syncStatus(st *state) SyncStatus {
	if !st.remote() || st.sync == nil {
		return SyncStatus{State: SyncLocal}
	}
	rep := st.familyReplica()
	st.sync.mu.Lock()
	out := SyncStatus{Syncing: st.sync.syncing}
	ran, offline, problem, openFail := st.sync.ran, st.sync.offline, st.sync.problem, st.sync.openFail
	detail := st.sync.detail
	st.sync.mu.Unlock()
	switch {
	case openFail != "":
		out.State, out.Problem, out.Detail = SyncProblem, openFail, detail
	case problem != "":
		out.State, out.Problem, out.Detail = SyncProblem, problem, detail
	case offline != "":
		out.State, out.Problem, out.Detail = SyncOffline, offline, detail
	case !ran:
		out.State = SyncStarting
	default:
		out.State = SyncUpToDate
	}
	if rep == nil {
		out.CacheBytes = cmp.Or(st.prefs.CacheBytes, replica.DefaultCacheBytes)
		return out
	}
	if s, err := rep.State(context.Background()); err == nil && !s.SyncedAt.IsZero() {
		out.AsOf = view.TimeString(&s.SyncedAt)
	}
	_, out.CopyBytes = rep.Copies().Usage()
	out.CacheBytes = rep.Copies().Budget()
	return out
}
