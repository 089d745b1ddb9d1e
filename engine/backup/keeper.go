package backup

import (
	"context"
	"errors"
	"io/fs"
	"sync"
	"syscall"
	"time"

	"github.com/sparkfamily/spark/engine/api"
)

// Keeper keeps a folder's off-site copy while a process holds the folder:
// it ships a pass every Shipper.Interval and tells, at any moment, how the
// copy stands (Health), in the words of engine/api's BackupHealth. It is
// what `serve --backup-to` and the app's own engine run.
type Keeper struct {
	Shipper *Shipper
	// LogSeq tells the engine's last seq, for Health's Seq; nil leaves
	// it at what the last pass read.
	LogSeq func() uint64
	// Now is the clock; nil is time.Now.
	Now func() time.Time

	mu   sync.Mutex
	h    api.BackupHealth
	kick chan struct{} // Kick's signal to Run; made by Kick or Run
	once sync.Once
}

// Settle is how long Run waits after a Kick before the pass, so that the
// writes of a burst go up in one segment: an op acknowledged is in the
// copy within Settle and one pass, not a whole Interval later.
const Settle = time.Second

// Kick asks Run for a pass soon: the engine calls it after each batch it
// logged. It never blocks.
func (k *Keeper) Kick() {
	select {
	case k.kicks() <- struct{}{}:
	default: // a pass is already asked for
	}
}

func (k *Keeper) kicks() chan struct{} {
	k.once.Do(func() { k.kick = make(chan struct{}, 1) })
	return k.kick
}

// Run ships until ctx ends: a pass at once, then one Settle after each
// Kick and at least one every interval, each failure tried again at the
// next tick and reported by Health meanwhile. It returns ctx's error.
func (k *Keeper) Run(ctx context.Context) error {
	every := k.Shipper.Interval
	if every <= 0 {
		every = DefaultInterval
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		k.Pass(ctx)
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

// Pass ships once and notes how it went; it returns the pass's error.
func (k *Keeper) Pass(ctx context.Context) error {
	start := k.now()
	k.note(func(h *api.BackupHealth) {
		if h.ShippedSeq < k.logSeq(h) && h.State != api.BackupFailing && h.State != api.BackupCheckFailed {
			h.State = api.BackupCatchingUp
		}
	})
	st, err := k.Shipper.Ship(ctx)
	log := k.Shipper.logger()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	k.note(func(h *api.BackupHealth) {
		if err == nil || st.LastSeq > h.ShippedSeq {
			h.ShippedSeq = st.LastSeq
		}
		if st.LogSeq > h.Seq {
			h.Seq = st.LogSeq
		}
		if err != nil {
			h.Problem, h.Reason = ProblemOf(err), err.Error()
			if h.State != api.BackupCheckFailed {
				h.State = api.BackupFailing
			}
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
		if h.State != api.BackupCheckFailed {
			h.State, h.Problem, h.Reason = api.BackupCurrent, "", ""
		}
	})
	switch {
	case err != nil:
		log.Warn("backup: shipping failed; trying again", "target", k.Shipper.Target.String(), "problem", ProblemOf(err), "err", err)
	case st.Segments > 0:
		log.Info("backup: shipped", "target", k.Shipper.Target.String(), "last_seq", st.LastSeq, "segments", st.Segments, "media", st.Media, "bytes", st.LogBytes+st.MediaBytes)
	}
	return err
}

// Health is how the copy stands now: a copy the caller may keep.
func (k *Keeper) Health() *api.BackupHealth {
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

// note changes the health under the lock.
func (k *Keeper) note(f func(h *api.BackupHealth)) {
	k.mu.Lock()
	defer k.mu.Unlock()
	f(&k.h)
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
	{ErrUnreachable, api.BackupUnreachable},
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
