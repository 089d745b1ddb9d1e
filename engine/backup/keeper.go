package backup

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/sparkfamily/spark/engine/api"
)

// Keeper keeps a folder's off-site copy while a process holds the folder:
// it ships a pass every Shipper.Interval, drills the copy every
// CheckEvery (Check), and tells, at any moment, how the copy stands
// (Health), in the words of engine/api's BackupHealth. It is what `serve
// --backup-to` and the app's own engine run.
//
// It remembers the last seq it saw in the copy: a pass that finds the
// copy holding less (emptied or cut by hand behind Spark's back) reports
// problem gone (ErrLost) and ships everything again, which is recovery,
// since nothing is ever deleted. The state stays failing, gone, until the
// copy holds again all it held and a drill, run at once then, has
// restored and checked it: an emptied copy is news for its owner even
// when Spark could make it whole.
//
// Each problem is logged once when it starts and once when it clears.
type Keeper struct {
	Shipper *Shipper
	// LogSeq tells the engine's last seq, for Health's Seq; nil leaves
	// it at what the last pass read.
	LogSeq func() uint64
	// Now is the clock; nil is time.Now.
	Now func() time.Time
	// CheckEvery is how often Run drills the copy; 0 is DefaultCheckEvery.
	CheckEvery time.Duration
	// CheckOptions tune the drills.
	CheckOptions CheckOptions

	loadOnce sync.Once
	wake     chan struct{} // a drill may be due sooner: look again

	mu       sync.Mutex
	h        api.BackupHealth
	passErr  error        // the last pass's failure; nil when it succeeded
	passedAt time.Time    // when the last pass that succeeded began
	check    *checkRecord // the last drill of this target, if any
	recMod   time.Time    // when CheckFile was last written, as read
	held     uint64       // the most the copy was seen holding
	lost     error        // ErrLost, until a drill after the re-ship clears it
	whole    bool         // lost, and the copy holds again all it held
	wholeAt  time.Time    // since when
	said     string       // the problem last logged ("" none)
	started  time.Time
	kick     chan struct{} // Kick's signal to Run; made by Kick or Run
	kickOnce sync.Once
	kicked   atomic.Int64 // when Kick was last called, in Unix nanoseconds
}

// busyFor is how long after a Kick the engine counts as taking writes
// (Shipper.Busy): a capture is a few batches a few milliseconds apart.
const busyFor = 500 * time.Millisecond

// busy tells whether the engine logged a batch in the last busyFor.
func (k *Keeper) busy() bool {
	return time.Since(time.Unix(0, k.kicked.Load())) < busyFor
}

// The drill's schedule.
const (
	// DefaultCheckEvery is how often a Keeper drills the copy.
	DefaultCheckEvery = 24 * time.Hour
	// firstCheckAfter is how long after its start a Keeper first drills
	// a copy it knows no drill of: not at once, when the engine is busy
	// starting and the first pass may still be shipping.
	firstCheckAfter = 10 * time.Minute
	// retryCheckAfter is how soon a drill that failed is run again.
	retryCheckAfter = time.Hour
)

// ErrLost is a pass's finding that the copy holds less than it held: its
// objects were deleted behind Spark's back.
var ErrLost = errors.New("backup: the copy lost what Spark had shipped there")

// Settle is how long Run waits after a Kick before the pass, so that the
// writes of a burst go up in one segment: an op acknowledged is in the
// copy within Settle and one pass, not a whole Interval later.
const Settle = time.Second

// Kick asks Run for a pass soon: the engine calls it after each batch it
// logged. It never blocks.
func (k *Keeper) Kick() {
	k.kicked.Store(time.Now().UnixNano())
	select {
	case k.kicks() <- struct{}{}:
	default: // a pass is already asked for
	}
}

func (k *Keeper) kicks() chan struct{} {
	k.kickOnce.Do(func() { k.kick = make(chan struct{}, 1) })
	return k.kick
}

// Run ships until ctx ends: a pass at once, then one Settle after each
// Kick and at least one every interval, each failure tried again at the
// next tick and reported by Health meanwhile; beside the passes, from the
// end of the first that shipped everything, it drills the copy (Check)
// every CheckEvery. It
// returns ctx's error once the drill in progress, if any, has stopped.
func (k *Keeper) Run(ctx context.Context) error {
	if k.Shipper.Busy == nil {
		k.Shipper.Busy = k.busy
	}
	k.load()
	k.mu.Lock()
	k.started = k.now()
	k.mu.Unlock()
	every := k.Shipper.Interval
	if every <= 0 {
		every = DefaultInterval
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	t := time.NewTicker(every)
	defer t.Stop()
	for drilling := false; ; {
		err := k.Pass(ctx)
		if !drilling && err == nil {
			// The drills start once a pass has shipped everything: a copy
			// being made is not drilled half made, nor one whose disk
			// is unplugged and then plugged in while the first pass into
			// it runs (a drill then found no copy, and said so for an hour).
			drilling = true
			wg.Add(1)
			go func() {
				defer wg.Done()
				k.drills(ctx)
			}()
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		case <-k.kicks():
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(Settle):
			}
		}
	}
}

// drills runs Check when one is due, until ctx ends.
func (k *Keeper) drills(ctx context.Context) {
	for {
		k.mu.Lock()
		wait := k.nextCheckLocked(k.started).Sub(k.now())
		k.mu.Unlock()
		timer := time.NewTimer(max(wait, 0))
		select {
		case <-ctx.Done():
			timer.Stop()
			return
		case <-k.wakeC():
			timer.Stop()
			continue
		case <-timer.C:
		}
		if _, err := k.Check(ctx); err != nil && ctx.Err() != nil {
			return
		}
	}
}

func (k *Keeper) wakeC() chan struct{} {
	k.load()
	return k.wake
}

// poke tells drills to look at its schedule again (after load).
func (k *Keeper) poke() {
	select {
	case k.wake <- struct{}{}:
	default:
	}
}

// nextCheck is when the next drill is due, for a Keeper started at start:
// 10 minutes after it when no drill of the copy is known, at once when
// the last is older than CheckEvery (an hour for one that failed), else
// that long after the last; at once when the copy, emptied by hand, was
// shipped whole again.
func (k *Keeper) nextCheck(start time.Time) time.Time {
	k.load()
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.nextCheckLocked(start)
}

func (k *Keeper) nextCheckLocked(start time.Time) time.Time {
	if k.lost != nil && k.whole && (k.check == nil || k.check.Check.At.Before(k.wholeAt)) {
		return start
	}
	if k.missedLocked() {
		return start
	}
	if k.check == nil {
		return start.Add(firstCheckAfter)
	}
	every := k.CheckEvery
	if every <= 0 {
		every = DefaultCheckEvery
	}
	if !k.check.Check.OK {
		every = min(every, retryCheckAfter)
	}
	next := k.check.Check.At.Add(every)
	if next.Before(start) {
		return start
	}
	return next
}

// missedLocked reports whether the last drill found no copy to drill (the
// store not answering, or no copy in it: a disk being unplugged, a copy
// emptied) and a pass has shipped everything since: the copy is there
// again, and the drill is tried again at once rather than an hour on.
func (k *Keeper) missedLocked() bool {
	if k.check == nil || k.check.Check.OK || k.passErr != nil || k.passedAt.IsZero() {
		return false
	}
	switch k.check.Problem {
	case api.BackupUnreachable, api.BackupGone:
		return k.check.Check.At.Before(k.passedAt)
	}
	return false
}

// checkDue reports whether a drill is due now.
func (k *Keeper) checkDue() bool {
	k.load()
	k.mu.Lock()
	defer k.mu.Unlock()
	start := k.started
	if start.IsZero() {
		start = k.now()
	}
	return !k.now().Before(k.nextCheckLocked(start))
}

// Check drills the copy now (the package's Check, with CheckOptions),
// notes the result in Health and in the folder's CheckFile, and returns
// it: a failure puts the Keeper in state check_failed until a drill
// succeeds.
func (k *Keeper) Check(ctx context.Context) (*api.BackupCheck, error) {
	k.load()
	opts := k.CheckOptions
	if opts.Now == nil {
		opts.Now = k.now
	}
	if opts.Key == nil {
		opts.Key = k.Shipper.Key
	}
	if opts.Logger == nil {
		opts.Logger = k.Shipper.logger()
	}
	c, seq, err := checkSeq(ctx, k.Shipper.Target, opts)
	if ctx.Err() != nil {
		return c, ctx.Err()
	}
	rec := &checkRecord{Format: checkFormat, Target: k.Shipper.Target.String(), Check: *c, Seq: seq}
	if err != nil {
		rec.Problem, rec.Reason = ProblemOf(err), err.Error()
	}
	if werr := writeCheckRecord(k.Shipper.Dir, rec); werr != nil {
		k.Shipper.logger().Warn("backup: could not keep the drill's result", "err", werr)
	}
	k.note(func(h *api.BackupHealth) { k.noteCheck(h, rec) })
	log := k.Shipper.logger()
	if err == nil {
		log.Info("backup: drilled the copy: restored and checked", "target", k.Shipper.Target.String(), "moments", c.Moments, "bytes", c.Bytes, "sampled", c.Sampled)
	}
	return c, err
}

// noteCheck takes the drill rec into the health h.
func (k *Keeper) noteCheck(h *api.BackupHealth, rec *checkRecord) {
	k.check = rec
	c := rec.Check
	h.Check = &c
	if rec.Seq > k.held {
		k.held = rec.Seq
	}
	if c.OK && k.lost != nil && k.whole {
		k.lost, k.whole = nil, false
	}
}

// load reads the folder's CheckFile the first time it is called.
func (k *Keeper) load() { k.loadOnce.Do(k.loadFirst) }

func (k *Keeper) loadFirst() {
	k.wake = make(chan struct{}, 1)
	k.reload()
}

// reload takes the folder's CheckFile into the health if it changed
// (`spark-engine backup check --data` writes it beside a running serve).
func (k *Keeper) reload() {
	fi, err := os.Stat(filepath.Join(k.Shipper.Dir, CheckFile))
	if err != nil {
		return
	}
	k.mu.Lock()
	same := fi.ModTime().Equal(k.recMod)
	k.mu.Unlock()
	if same {
		return
	}
	rec, err := readCheckRecord(k.Shipper.Dir)
	if err != nil {
		k.Shipper.logger().Warn("backup: the last drill's result cannot be read; the next drill writes it again", "err", err)
	}
	k.note(func(h *api.BackupHealth) {
		k.recMod = fi.ModTime()
		if rec != nil && rec.Target == k.Shipper.Target.String() && (k.check == nil || rec.Check.At.After(k.check.Check.At)) {
			k.noteCheck(h, rec)
		}
	})
	k.poke()
}

// Pass ships once and notes how it went; it returns the pass's error.
func (k *Keeper) Pass(ctx context.Context) error {
	k.load()
	k.reload()
	start := k.now()
	k.note(func(h *api.BackupHealth) {
		if h.ShippedSeq < k.logSeq(h) && k.problemLocked() == "" {
			h.State = api.BackupCatchingUp
		}
	})
	st, err := k.Shipper.Ship(ctx)
	log := k.Shipper.logger()
	if err != nil && ctx.Err() != nil {
		// A pass cut short by shutdown says nothing of the copy; one that
		// finished as the shutdown came is recorded, so Health tells what
		// it shipped.
		return ctx.Err()
	}
	whole, missed := false, false
	k.note(func(h *api.BackupHealth) {
		if st.Listed && st.CopySeq < k.held {
			k.lost = marked{ErrLost, fmt.Errorf("backup: the copy in %s lost what Spark had shipped there (it held the log through seq %d, now %s): someone emptied it or removed it; Spark is shipping everything again, then checks the copy; look at who can delete in it, and keep it under object lock if the store has it",
				k.Shipper.Target, k.held, through(st.CopySeq))}
			k.whole = false
		}
		if st.LastSeq > k.held {
			k.held = st.LastSeq
		}
		if k.lost != nil && !k.whole && err == nil && st.LastSeq >= k.held {
			k.whole, k.wholeAt, whole = true, start, true
		}
		k.passErr = err
		if err == nil || st.LastSeq > h.ShippedSeq {
			h.ShippedSeq = st.LastSeq
		}
		if st.LogSeq > h.Seq {
			h.Seq = st.LogSeq
		}
		if err != nil {
			if h.BehindSince == nil && h.ShippedSeq < k.logSeq(h) {
				// The oldest op the copy lacks, when the pass read it;
				// else the first pass that found the copy behind.
				at := st.FirstUnshippedAt
				if at.IsZero() {
					at = start
				}
				h.BehindSince = &at
			}
			return
		}
		at := start
		h.ShippedAt, h.BehindSince = &at, nil
		h.State = api.BackupCurrent
		k.passedAt = start
		missed = k.missedLocked()
	})
	switch {
	case whole:
		log.Info("backup: the copy holds again all Spark had shipped; drilling it now", "target", k.Shipper.Target.String())
		k.poke()
	case missed:
		log.Info("backup: the copy the last drill did not find is there again; drilling it now", "target", k.Shipper.Target.String())
		k.poke()
	}
	if err == nil && st.Segments > 0 {
		log.Info("backup: shipped", "target", k.Shipper.Target.String(), "last_seq", st.LastSeq, "segments", st.Segments, "media", st.Media, "bytes", st.LogBytes+st.MediaBytes)
	}
	return err
}

// through says how far the copy's log goes.
func through(seq uint64) string {
	if seq == 0 {
		return "nothing"
	}
	return fmt.Sprintf("through seq %d", seq)
}

// problemLocked is the problem that decides the state, "" none: a pass
// that failed, then a copy that lost what it held, then a failed drill.
func (k *Keeper) problemLocked() string {
	switch {
	case k.passErr != nil:
		return ProblemOf(k.passErr)
	case k.lost != nil:
		return api.BackupGone
	case k.check != nil && !k.check.Check.OK:
		return k.check.Problem
	}
	return ""
}

// settle sets h's state, problem and reason from the last pass, the loss
// and the last drill, and logs a problem that starts or clears.
func (k *Keeper) settle(h *api.BackupHealth) {
	switch {
	case k.passErr != nil:
		h.State, h.Problem, h.Reason = api.BackupFailing, ProblemOf(k.passErr), k.passErr.Error()
		if h.Problem == api.BackupFull {
			h.Reason += ": the target has no room; make room on it (or raise the bucket's quota) and Spark ships the rest at the next pass"
		}
	case k.lost != nil:
		h.State, h.Problem, h.Reason = api.BackupFailing, api.BackupGone, k.lost.Error()
	case k.check != nil && !k.check.Check.OK:
		h.State, h.Problem, h.Reason = api.BackupCheckFailed, k.check.Problem, k.check.Reason
	default:
		if h.State == api.BackupFailing || h.State == api.BackupCheckFailed {
			// Cleared by a drill: the last pass succeeded.
			h.State = api.BackupCurrent
		}
		h.Problem, h.Reason = "", ""
	}
	switch {
	case h.Problem == "":
		h.FailingSince = nil
	case h.FailingSince == nil:
		at := k.now()
		h.FailingSince = &at
	}
	said := h.State + "/" + h.Problem
	if h.Problem == "" {
		said = ""
	}
	if said == k.said {
		return
	}
	log := k.Shipper.logger()
	if said != "" {
		log.Warn("backup: the off-site copy has a problem; it is tried again at every pass", "target", k.Shipper.Target.String(), "state", h.State, "problem", h.Problem, "reason", h.Reason)
	} else {
		log.Info("backup: the off-site copy's problem cleared", "target", k.Shipper.Target.String(), "was", k.said)
	}
	k.said = said
}

// Health is how the copy stands now: a copy the caller may keep.
func (k *Keeper) Health() *api.BackupHealth {
	k.load()
	k.mu.Lock()
	defer k.mu.Unlock()
	h := k.h
	h.Seq = k.logSeq(&h)
	if h.State == "" {
		h.State = api.BackupCatchingUp
	}
	if h.Check != nil {
		c := *h.Check
		h.Check = &c
	}
	return &h
}

// note changes the health under the lock, then settles its state.
func (k *Keeper) note(f func(h *api.BackupHealth)) {
	k.mu.Lock()
	defer k.mu.Unlock()
	f(&k.h)
	k.settle(&k.h)
}

func (k *Keeper) logSeq(h *api.BackupHealth) uint64 {
	if k.LogSeq != nil {
		if s := k.LogSeq(); s > h.Seq {
			return s
		}
	}
	return h.Seq
}

func (k *Keeper) now() time.Time {
	if k.Now != nil {
		return k.Now()
	}
	return time.Now()
}

// problems maps what a pass or a drill meets to the problem code Health
// reports, in order: the first match wins.
var problems = []struct {
	err  error
	code string
}{
	{ErrDenied, api.BackupDenied},
	{ErrNoBucket, api.BackupGone},
	{ErrNoCopy, api.BackupGone},
	{ErrLost, api.BackupGone},
	{ErrUnreachable, api.BackupUnreachable},
	{ErrNeedKey, api.BackupNoKey},
	{ErrWrongKey, api.BackupNoKey},
	{ErrConflict, api.BackupDamaged},
	{ErrBadBody, api.BackupDamaged},
	{ErrDamaged, api.BackupDamaged},
	{fs.ErrNotExist, api.BackupUnreachable},
	{fs.ErrPermission, api.BackupDenied},
	{syscall.ENOSPC, api.BackupFull},
	{syscall.EDQUOT, api.BackupFull},
}

// ProblemOf is the BackupProblem code for err, the one place that decides
// it; api.BackupOther when none fits.
func ProblemOf(err error) string {
	for _, p := range problems {
		if errors.Is(err, p.err) {
			return p.code
		}
	}
	return api.BackupOther
}
