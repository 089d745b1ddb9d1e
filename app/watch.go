package app

import (
	"context"
	"sync"
	"time"

	"github.com/sparkfamily/spark/app/replica"
	"github.com/sparkfamily/spark/app/view"
	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/client"
)

// The kinds of MomentEvent (mirrored in frontend/src/events.ts).
const (
	MomentKindChanged = "changed" // new, edited, a file or a reading added or finished
	MomentKindDeleted = "deleted"
	MomentKindMany    = "many" // too many changed to send one by one: read the list again
)

// watchMany is how many moments one look at the log sends one by one; past
// it (an import of hundreds of photos on the family engine, say) one
// MomentKindMany event is sent instead.
const watchMany = 50

// MomentEvent tells the UI, on the "moment" event, that a moment changed in
// the engine: a reading started or finished, a caption was edited, a file
// arrived, or it was deleted. Moment is the moment as it is now.
type MomentEvent struct {
	Kind   string       `json:"kind"`
	ID     string       `json:"id"`
	Moment *view.Moment `json:"moment"`
}

// watchEvery is how often the watcher asks the engine whether its log grew.
var watchEvery = time.Second

// watcher follows the current engine's op log and sends a "moment" event
// for every moment an op touched, so that a reading shows on its card and
// tile the moment Pippa finishes it, without the UI polling the list. It
// asks GET /v1/health for the log's last seq and, only when it grew,
// GET /v1/ops for the new ops: the contract's own routes, so it works for
// the family engine as for the one on this computer.
type watcher struct {
	mu   sync.Mutex
	stop context.CancelFunc
	done chan struct{}
}

// start runs the watcher until stopWatch; a second start does nothing.
func (w *watcher) start(a *App) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stop != nil {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	w.stop, w.done = cancel, make(chan struct{})
	go func() {
		defer close(w.done)
		a.watchLoop(ctx)
	}()
}

// stopWatch stops the watcher and waits for it.
func (w *watcher) stopWatch() {
	w.mu.Lock()
	stop, done := w.stop, w.done
	w.stop = nil
	w.mu.Unlock()
	if stop != nil {
		stop()
		<-done
	}
}

func (a *App) watchLoop(ctx context.Context) {
	var cl *client.Client // the engine being followed
	var last uint64       // its last seq seen
	t := time.NewTicker(watchEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		st := a.state()
		cur, err := st.client()
		if err != nil {
			continue
		}
		if st.familyReplica() != nil {
			// The sync sends the events from the replica (sync.go).
			cl = nil
			continue
		}
		if cur != cl {
			// A new engine (Settings switched): follow it from its present.
			h, err := healthOf(ctx, cur)
			if err != nil {
				continue
			}
			st.engineAnswered()
			cl, last = cur, h.Seq
			continue
		}
		last = a.watchOnce(ctx, st, cl, last)
	}
}

func healthOf(ctx context.Context, cl *client.Client) (*api.Health, error) {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	return cl.Health(ctx)
}

// watchOnce reads the ops after last, sends the events, and returns the
// new last seq. The engine answering its health check is told to the
// outbox (state.engineAnswered).
func (a *App) watchOnce(ctx context.Context, st *state, cl *client.Client, last uint64) uint64 {
	h, err := healthOf(ctx, cl)
	if err != nil {
		return last
	}
	st.engineAnswered()
	if h.Seq == last {
		return last
	}
	if h.Seq < last {
		// Another log under the same address (the engine's data was
		// replaced): follow it from its present.
		return h.Seq
	}
	rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	ops, _, err := cl.Ops(rctx, last, 1000)
	if err != nil || len(ops) == 0 {
		return last
	}
	if h.Seq-last > 1000 {
		// Far behind: skip to the present and let the UI read the list.
		a.emit(EventMoment, MomentEvent{Kind: MomentKindMany})
		return h.Seq
	}
	a.emitMoments(rctx, momentsTouched(rctx, cl, ops), cl.Moment)
	return ops[len(ops)-1].Seq
}

// emitMoments sends the "moment" event of each moment as the window shows
// it, with what Dad did that the engine does not have yet (app/view/overlay.go):
// changed, or deleted; one "many" event past watchMany. read reads a
// moment, deleted ones too; a moment it cannot read is skipped.
func (a *App) emitMoments(ctx context.Context, ids []string, read func(context.Context, string) (*api.Moment, error)) {
	if len(ids) > watchMany {
		a.emit(EventMoment, MomentEvent{Kind: MomentKindMany})
		return
	}
	st := a.state()
	for _, id := range ids {
		mo, err := read(ctx, id)
		if err != nil {
			continue
		}
		ev := MomentEvent{Kind: MomentKindChanged, ID: id}
		if mo.DeletedAt != nil {
			ev.Kind = MomentKindDeleted
		} else {
			v := view.MomentView(mo, st.viewer())
			a.overlayMoment(st, id, &v, &err)
			ev.Moment = &v
		}
		a.emit(EventMoment, ev)
	}
}

// momentsTouched lists, once each and in order, the moments the ops
// changed (replica.Touched), asking the engine for the moment of a turn
// finished without its start among the ops.
func momentsTouched(ctx context.Context, cl *client.Client, ops []api.Op) []string {
	t := replica.NewTouched()
	t.Add(ops)
	return t.Moments(ctx, func(ctx context.Context, id string) (string, error) {
		tu, err := cl.Turn(ctx, id)
		if err != nil {
			return "", err
		}
		return tu.MomentID, nil
	})
}
