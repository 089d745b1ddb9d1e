package app

import (
	"cmp"
	"context"
	"errors"
	"path/filepath"
	"sync"
	"time"

	"github.com/sparkfamily/spark/api"
	"github.com/sparkfamily/spark/client"
	"github.com/sparkfamily/spark/outbox"
	"github.com/sparkfamily/spark/replica"
	"github.com/sparkfamily/spark/retry"
)

// The replica of the family engine, kept by the app while it runs.
//
// When Spark uses a family engine, the window reads from a replica of it in
// DATA/replica (package replica; corpus.go), and a sync loop keeps it up to
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

// SyncStatus is what the status bar and Settings show of the replica.
type SyncStatus struct {
	State string `json:"state"` // one of the Sync* states
	// AsOf is when this computer's copy last caught up with the family
	// engine (RFC 3339), "" if never.
	AsOf string `json:"asOf"`
	// Syncing is true while a sync runs.
	Syncing bool `json:"syncing"`
	// Problem says, in words for Dad, why the sync stopped (State
	// "problem") or could not reach the engine (State "offline").
	Problem string `json:"problem"`
	// CopyBytes and CacheBytes are the small copies' bytes on this
	// computer and their limit.
	CopyBytes  int64 `json:"copyBytes"`
	CacheBytes int64 `json:"cacheBytes"`
}

// Sync is the bound struct of the replica: its status and its rebuild.
type Sync struct{ a *App }

// Status returns where the replica stands.
func (s *Sync) Status() (SyncStatus, error) { return s.a.syncStatus(), nil }

// Rebuild drops this computer's copy of the family engine and fetches it
// again from the start, then syncs on as usual.
func (s *Sync) Rebuild() (SyncStatus, error) {
	a := s.a
	rep, cl := a.replicaAndEngine()
	if rep == nil {
		return a.syncStatus(), badInput("Spark is using the engine on this computer: there is no copy of a family engine to rebuild.")
	}
	// Shutdown stops it (ctx) and waits for it (busy) before closing the
	// replica.
	a.mu.Lock()
	ctx := a.repl.ctx
	if ctx == nil {
		a.mu.Unlock()
		return a.syncStatus(), ErrNotReady
	}
	a.repl.busy.Add(1)
	a.mu.Unlock()
	defer a.repl.busy.Done()
	a.repl.begin()
	a.repl.mu.Lock()
	a.repl.trusted = false
	a.repl.mu.Unlock()
	res, err := rep.Rebuild(ctx, cl)
	if ctx.Err() != nil {
		return a.syncStatus(), ErrNotReady
	}
	a.syncEnded(rep, res, err, true)
	return a.syncStatus(), nil
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
		return a.syncStatus(), badInput("Give a size between %g and %g GB.", minCacheGB, maxCacheGB)
	}
	n := int64(gb * (1 << 30))
	a.mu.Lock()
	if a.dataDir == "" {
		a.mu.Unlock()
		return SyncStatus{}, ErrNotReady
	}
	old := a.prefs.CacheBytes
	a.prefs.CacheBytes = n
	if err := savePrefs(a.dataDir, a.prefs); err != nil {
		a.prefs.CacheBytes = old
		a.mu.Unlock()
		return a.syncStatus(), err
	}
	rep := a.repl.rep
	running := a.repl.kick != nil
	a.mu.Unlock()
	if rep != nil {
		if err := rep.Copies().SetBudget(n); err != nil {
			return a.syncStatus(), err
		}
		if running {
			a.kickSync()
		}
	}
	return a.syncStatus(), nil
}

// syncer is the app's part of the replica. rep is guarded by App.mu; the
// rest by mu.
type syncer struct {
	rep  *replica.Replica
	kick chan struct{}
	ctx  context.Context // the loop's: ends at Shutdown
	stop context.CancelFunc
	done chan struct{}
	busy sync.WaitGroup // a Rebuild running

	mu  sync.Mutex
	ran bool // a sync has ended since the engine was chosen
	// trusted is true when the replica holds the chosen engine's copy: it
	// caught up with it once, in this run or (not switched since) a
	// previous one. Until then the window reads the engine itself.
	trusted  bool
	syncing  bool   //
	offline  string // why the last sync could not reach the engine
	problem  string // why the sync stopped; "" when it runs
	openFail string // why the replica could not be opened
	// goodBegan is when the last sync that ended well began: everything
	// the outbox delivered before it is in the replica. What it delivered
	// since may not be, so the reads keep showing it from the outbox
	// (sentMoments, heldWrites) and the window never loses a capture or
	// flips a caption back while the sync catches up.
	goodBegan time.Time
	began     time.Time // when the sync under way began

	// failures counts the syncs in a row that could not reach the family
	// engine. The loop's alone: no lock.
	failures int
}

// heldSince is the time from which the outbox's deliveries may be
// missing from the replica: the start of the last sync that ended well in
// this run, or, before one has, ten minutes before the replica last caught
// up (a sync that began earlier is long over). Zero when Spark does not
// read a replica.
func (a *App) heldSince(ctx context.Context) (time.Time, *replica.Replica) {
	rep := a.readsReplica()
	if rep == nil {
		return time.Time{}, nil
	}
	a.repl.mu.Lock()
	since := a.repl.goodBegan
	a.repl.mu.Unlock()
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
func (a *App) heldWrites(ctx context.Context) []outbox.Write {
	since, rep := a.heldSince(ctx)
	ob, err := a.queue()
	if rep == nil || err != nil {
		return nil
	}
	ws, err := ob.SentWritesSince(ctx, since)
	if err != nil {
		a.log.Warn("read the outbox's sent writes", "err", err)
		return nil
	}
	// Only what went to the engine the replica copies.
	to := ob.Target().URL
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
func (a *App) sentMoments(ctx context.Context) []Moment {
	since, rep := a.heldSince(ctx)
	ob, err := a.queue()
	if rep == nil || err != nil {
		return nil
	}
	es, err := ob.DeliveredSince(ctx, since)
	if err != nil {
		a.log.Warn("read the outbox's delivered captures", "err", err)
		return nil
	}
	to := ob.Target().URL
	var out []Moment
	for i := range es {
		if es[i].Target != to {
			continue // delivered to another engine: not the replica's
		}
		if _, err := rep.Moment(ctx, es[i].MomentID); err != nil {
			out = append(out, pendingView(&es[i]))
		}
	}
	sortNewestFirst(out)
	return out
}

// openReplica opens DATA/replica if it is not open. A failure is logged
// and shown in the status: the window then reads from the family engine.
// Called with a.mu held.
func (a *App) openReplica(ctx context.Context) {
	if a.repl.rep != nil {
		return
	}
	rep, err := replica.Open(ctx, filepath.Join(a.dataDir, ReplicaDir), replica.Options{CacheBytes: a.prefs.CacheBytes, Logger: a.log.With("part", "replica")})
	a.repl.mu.Lock()
	defer a.repl.mu.Unlock()
	if err != nil {
		a.log.Error("open the replica", "err", err)
		a.repl.openFail = "Spark can't keep a copy of the family engine on this computer: " + err.Error()
		return
	}
	a.repl.rep, a.repl.openFail = rep, ""
	if st, err := rep.State(ctx); err == nil && !st.SyncedAt.IsZero() {
		a.repl.trusted = true
	}
}

// useReplica is connect's part when Spark uses a family engine: the
// replica opened, its status afresh, a sync soon. Called with a.mu held.
func (a *App) useReplica(ctx context.Context) {
	switched := a.repl.kick != nil // not the start: Settings chose it
	a.openReplica(ctx)
	a.repl.mu.Lock()
	a.repl.ran, a.repl.offline, a.repl.problem, a.repl.goodBegan = false, "", "", time.Time{}
	if switched {
		a.repl.trusted = false
	}
	a.repl.mu.Unlock()
	if switched {
		a.kickSync()
	}
}

// usesReplica reports whether the replica's sync sends the "moment"
// events: whenever Spark uses a family engine and keeps its replica.
func (a *App) usesReplica() bool {
	rep, _ := a.replicaAndEngine()
	return rep != nil
}

// readsReplica returns the replica when the window reads from it.
// Called with a.mu held.
func (a *App) readsReplica() *replica.Replica {
	if a.prefs.Engine != EngineRemote || a.repl.rep == nil {
		return nil
	}
	a.repl.mu.Lock()
	defer a.repl.mu.Unlock()
	if !a.repl.trusted {
		return nil
	}
	return a.repl.rep
}

// closeReplica closes the replica. Called with a.mu held, after the loop
// stopped.
func (a *App) closeReplica() {
	if a.repl.rep == nil {
		return
	}
	if err := a.repl.rep.Close(); err != nil {
		a.log.Error("close the replica", "err", err)
	}
	a.repl.rep = nil
}

// replicaAndEngine returns the replica and the family engine's client when
// Spark uses a family engine, else nils.
func (a *App) replicaAndEngine() (*replica.Replica, *client.Client) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.prefs.Engine != EngineRemote || a.repl.rep == nil || a.cl == nil {
		return nil, nil
	}
	return a.repl.rep, a.cl
}

// kickSync asks for a sync soon; kicks pile up into one. Called once the
// loop started.
func (a *App) kickSync() {
	select {
	case a.repl.kick <- struct{}{}:
	default:
	}
}

// startSync runs the sync loop until stopSync. Called with a.mu held.
func (a *App) startSync() {
	if a.repl.stop != nil || a.ob == nil {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	a.repl.ctx, a.repl.stop, a.repl.done, a.repl.kick = ctx, cancel, make(chan struct{}), make(chan struct{}, 1)
	ob := a.ob
	events, unsubscribe := ob.Subscribe()
	done := a.repl.done
	go func() {
		defer close(done)
		defer unsubscribe()
		a.syncLoop(ctx, ob, events)
	}()
	a.kickSync()
}

// stopSync stops the loop and waits for it. Called without a.mu.
func (a *App) stopSync() {
	a.mu.Lock()
	stop, done := a.repl.stop, a.repl.done
	a.repl.stop, a.repl.ctx = nil, nil
	a.mu.Unlock()
	if stop != nil {
		stop()
		<-done
	}
	a.repl.busy.Wait()
}

func (a *App) syncLoop(ctx context.Context, ob *outbox.Outbox, events <-chan outbox.Event) {
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
			if !a.delivered(ctx, ob, ev) {
				continue
			}
		case <-a.repl.kick:
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
			case <-a.repl.kick:
			case ev, ok := <-events:
				if !ok {
					events = nil
					continue
				}
				a.delivered(ctx, ob, ev)
			case <-settle.C:
				break settling
			}
		}
		timer.Reset(a.syncOnce(ctx))
	}
}

// delivered reports whether an outbox event is a delivered step (its op is
// in the engine's log now: a reason to sync). A capture delivered stays on
// show until the sync brings it.
func (a *App) delivered(ctx context.Context, ob *outbox.Outbox, ev outbox.Event) bool {
	if ev.Kind != outbox.EventStepDone && ev.Kind != outbox.EventDone {
		return false
	}
	return true
}

// syncOnce syncs the replica, unless Spark uses the engine on this
// computer or the sync is stopped by a problem, and returns how long to
// wait before the next.
func (a *App) syncOnce(ctx context.Context) time.Duration {
	rep, cl := a.replicaAndEngine()
	if rep == nil {
		return syncIdle
	}
	a.repl.mu.Lock()
	stopped := a.repl.problem != ""
	a.repl.mu.Unlock()
	if stopped {
		return syncIdle
	}
	a.repl.begin()
	res, err := rep.Sync(ctx, cl)
	if ctx.Err() != nil {
		return syncIdle
	}
	a.syncEnded(rep, res, err, false)
	if err != nil && !stopsSync(err) {
		a.repl.failures++
		return syncRetry(a.repl.failures, err, nil)
	}
	a.repl.failures = 0
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

func (s *syncer) begin() {
	s.mu.Lock()
	s.syncing, s.began = true, time.Now()
	s.mu.Unlock()
}

// syncEnded records how a sync ended, and tells the window: the moments it
// changed, and the new status.
func (a *App) syncEnded(rep *replica.Replica, res replica.Result, err error, rebuilt bool) {
	a.repl.mu.Lock()
	a.repl.syncing, a.repl.ran = false, true
	switch {
	case err == nil:
		a.repl.offline, a.repl.problem, a.repl.trusted = "", "", true
		if !a.repl.began.IsZero() {
			a.repl.goodBegan = a.repl.began
		}
	case stopsSync(err):
		a.log.Error("the sync stopped", "err", err)
		a.repl.offline, a.repl.problem = "", syncProblem(err)
	default:
		a.log.Info("the family engine can't be reached for a sync", "err", err)
		a.repl.offline = toUIError(err).Message
		if rebuilt {
			a.repl.problem = ""
		}
	}
	a.repl.mu.Unlock()
	if rebuilt || res.Reset {
		a.emit("moment", MomentEvent{Kind: MomentKindMany})
	} else {
		a.emitChanged(rep, res.Moments)
	}
	a.emit("sync", a.syncStatus())
}

// stopsSync reports an error that a sync again would only repeat: a page
// that does not fold, a log that no longer continues the copy, a small
// copy whose bytes are not the ones the log records.
func stopsSync(err error) bool {
	var ce *replica.ChecksumError
	return errors.Is(err, replica.ErrBadPage) || errors.Is(err, replica.ErrMustRebuild) || errors.As(err, &ce)
}

// syncProblem says why the sync stopped, in words for Dad.
func syncProblem(err error) string {
	switch {
	case errors.Is(err, replica.ErrMustRebuild):
		return "The family engine no longer matches the copy on this computer (it may have been restored from an older backup). " +
			"Your moments are still shown as this computer has them. Rebuild this computer's copy to fetch everything again."
	default:
		return "Spark stopped copying the family engine to this computer: the engine sent something this Spark can't read (the details are in Spark's log). " +
			"Your moments are still shown as this computer has them. Rebuild this computer's copy to fetch everything again; if this comes back, ask whoever looks after the family engine (Spark may need an update)."
	}
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
// runs now rather than at the next tick. reason is why it can't be used.
func (a *App) engineSeen(ok bool, reason string) {
	a.mu.Lock()
	remote, running := a.prefs.Engine == EngineRemote, a.repl.kick != nil
	a.mu.Unlock()
	if !remote {
		return
	}
	a.repl.mu.Lock()
	offline, problem := a.repl.offline, a.repl.problem
	changed := !ok && offline == "" && problem == ""
	if changed {
		a.repl.offline = reason
	}
	a.repl.mu.Unlock()
	switch {
	case changed:
		a.emit("sync", a.syncStatus())
	case ok && offline != "" && running:
		a.kickSync()
	}
}

// syncStatus returns the replica's status.
func (a *App) syncStatus() SyncStatus {
	a.mu.Lock()
	remote, rep := a.prefs.Engine == EngineRemote, a.repl.rep
	a.mu.Unlock()
	if !remote {
		return SyncStatus{State: SyncLocal}
	}
	a.repl.mu.Lock()
	st := SyncStatus{Syncing: a.repl.syncing}
	ran, offline, problem, openFail := a.repl.ran, a.repl.offline, a.repl.problem, a.repl.openFail
	a.repl.mu.Unlock()
	switch {
	case openFail != "":
		st.State, st.Problem = SyncProblem, openFail
	case problem != "":
		st.State, st.Problem = SyncProblem, problem
	case offline != "":
		st.State, st.Problem = SyncOffline, offline
	case !ran:
		st.State = SyncStarting
	default:
		st.State = SyncUpToDate
	}
	if rep == nil {
		a.mu.Lock()
		st.CacheBytes = cmp.Or(a.prefs.CacheBytes, replica.DefaultCacheBytes)
		a.mu.Unlock()
		return st
	}
	if s, err := rep.State(context.Background()); err == nil && !s.SyncedAt.IsZero() {
		st.AsOf = timeString(&s.SyncedAt)
	}
	_, st.CopyBytes = rep.Copies().Usage()
	st.CacheBytes = rep.Copies().Budget()
	return st
}
