package app

import (
	"context"

	"github.com/sparkfamily/spark/app/view"
	"github.com/sparkfamily/spark/outbox"
)

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

// overlayPage shows what Dad did that the engine does not have yet on a
// page of moments read with s (view.Unsent.Page).
func (a *App) overlayPage(s *state, before string, page *view.Page, err *error) {
	if u, ok := a.unsentWrites(context.Background(), s); ok {
		u.Page(before, page, err)
	}
}

// overlayMoment shows it on one moment (view.Unsent.Moment).
func (a *App) overlayMoment(s *state, id string, mo *view.Moment, err *error) {
	if u, ok := a.unsentWrites(context.Background(), s); ok {
		u.Moment(id, mo, err)
	}
}

// overlayPhrases shows it on the kept phrases (view.Unsent.Phrases).
func (a *App) overlayPhrases(s *state, ps *[]view.Phrase, err *error) {
	if *err != nil {
		return
	}
	if u, ok := a.unsentWrites(context.Background(), s); ok {
		u.Phrases(ps)
	}
}
