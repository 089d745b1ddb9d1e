package app

import (
	"context"

	"github.com/sparkfamily/spark/app/view"
	"github.com/sparkfamily/spark/outbox"
)

// reads is what a read of the window needs of s (view.Reads): where it
// reads, and what the outbox holds that the engine does not have yet.
func (a *App) reads(s *state) view.Reads {
	src, err := s.corpus()
	return view.Reads{Source: src, SourceErr: err, Viewer: s.viewer(),
		Pending: func(ctx context.Context) ([]view.Moment, error) { return pendingMoments(ctx, s) },
		Sent:    func(ctx context.Context) []view.Moment { return a.sentMoments(ctx, s) },
		Unsent:  func(ctx context.Context) (view.Unsent, bool) { return a.unsentWrites(ctx, s) },
	}
}

// unsentWrites reads the outbox's writes not sent yet, and the careful
// readings asked, for the reads of s to show (view.Unsent); ok is false
// when there is no outbox to read.
func (a *App) unsentWrites(ctx context.Context, s *state) (view.Unsent, bool) {
	ob, err := s.queue()
	if err != nil {
		return view.Unsent{}, false
	}
	ws, err := ob.UnsentWrites(ctx)
	if err != nil {
		a.log.Warn("read the outbox's writes", "err", err)
		return view.Unsent{}, false
	}
	cs, err := ob.KindWrites(ctx, outbox.WriteCareful)
	if err != nil {
		a.log.Warn("read the outbox's careful readings", "err", err)
	}
	// Writes delivered that the replica may not hold yet still show, first.
	ws = append(a.heldWrites(ctx, s), ws...)
	u := view.Unsent{Writes: ws, Careful: map[string]string{}, WaitsOf: s.waitsOf, Viewer: s.viewer()}
	if src, err := s.corpus(); err == nil {
		u.Source = src
	}
	for _, c := range cs {
		u.Careful[c.MomentID] = c.ID
	}
	es, err := undelivered(ctx, ob)
	if err != nil {
		a.log.Warn("read the outbox's captures", "err", err)
	}
	u.Captures = make(map[string]outbox.State, len(es))
	for _, e := range es {
		u.Captures[e.MomentID] = e.State
	}
	return u, true
}

// overlayMoment shows what Dad did that the engine does not have yet on
// one moment read with s (view.Unsent.Moment).
func (a *App) overlayMoment(s *state, id string, mo *view.Moment, err *error) {
	if u, ok := a.unsentWrites(context.Background(), s); ok {
		u.Moment(id, mo, err)
	}
}
