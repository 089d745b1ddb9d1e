package view

import (
	"context"
	"net/http"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/internal/retry"
)

// Reads is what one read of the window needs from the app: where it
// reads (the engine or the replica, Source) and, from the outbox, what
// the engine does not have yet. app builds one per read from the state
// it reads with, so that every part of the read sees the same engine.
type Reads struct {
	// Source is what the state reads; SourceErr is why there is none
	// (Spark has not finished starting), nil otherwise.
	Source    Corpus
	SourceErr error
	// Viewer is whom the window shows it to.
	Viewer Viewer
	// Pending reads the outbox's captures the engine does not have yet,
	// newest first.
	Pending func(ctx context.Context) ([]Moment, error)
	// Sent reads the captures the outbox delivered to the family engine
	// that the replica does not hold yet, newest first.
	Sent func(ctx context.Context) []Moment
	// Unsent reads the outbox's writes the engine does not have yet; ok
	// is false when there is no outbox to read.
	Unsent func(ctx context.Context) (u Unsent, ok bool)
}

// Page returns up to limit moments older than before ("" for the
// newest), with what Dad did that the engine does not have yet. The first
// page also carries the outbox's captures not yet in the engine, so a
// photo shows in Moments the instant it is safe.
func (r Reads) Page(ctx context.Context, before string, limit int) (res Page, err error) {
	defer func() {
		if u, ok := r.Unsent(ctx); ok {
			u.Page(before, &res, &err)
		}
	}()
	page := Page{Moments: []Moment{}} // [] rather than null for the UI
	if before == "" {
		pending, err := r.Pending(ctx)
		if err != nil {
			return page, err
		}
		page.Moments = append(page.Moments, pending...)
	}
	if r.SourceErr != nil {
		return page, r.SourceErr
	}
	if before == "" {
		// With a family engine: delivered, but not in this computer's
		// copy until the next sync (app/sync.go).
		if sent := r.Sent(ctx); len(sent) > 0 {
			page.Moments = append(page.Moments, sent...)
			SortNewestFirst(page.Moments)
		}
	}
	ms, next, err := r.Source.Moments(ctx, limit, before)
	if err != nil {
		if before == "" && len(page.Moments) > 0 {
			// Offline: the captures still show.
			return page, nil
		}
		return page, err
	}
	seen := make(map[string]bool, len(page.Moments))
	for _, p := range page.Moments {
		seen[p.ID] = true
	}
	for i := range ms {
		if seen[ms[i].ID] {
			// Delivered but not yet marked done in the outbox: show the
			// engine's record instead of the pending one.
			page.Moments = dropPending(page.Moments, ms[i].ID)
		}
		page.Moments = append(page.Moments, MomentView(&ms[i], r.Viewer))
	}
	if next != nil {
		page.Next = *next
	}
	return page, nil
}

func dropPending(ms []Moment, id string) []Moment {
	out := ms[:0]
	for _, m := range ms {
		if m.ID != id || !m.Pending {
			out = append(out, m)
		}
	}
	return out
}

// Moment returns one moment with its readings, with what Dad did that
// the engine does not have yet; a capture still in the outbox comes from
// there.
func (r Reads) Moment(ctx context.Context, id string) (res Moment, err error) {
	defer func() {
		if u, ok := r.Unsent(ctx); ok {
			u.Moment(id, &res, &err)
		}
	}()
	if r.SourceErr != nil {
		return Moment{}, r.SourceErr
	}
	mo, err := r.Source.Moment(ctx, id)
	if err == nil {
		return MomentView(mo, r.Viewer), nil
	}
	// The engine does not have it yet, or cannot say: the outbox may.
	if e, ok := api.AsError(err); !ok || e.Status == 0 || e.Status == http.StatusNotFound || retry.Passing(e.Status) || retry.Refused(e.Status) {
		if ms, perr := r.Pending(ctx); perr == nil {
			for _, p := range ms {
				if p.ID == id {
					return p, nil
				}
			}
		}
		for _, p := range r.Sent(ctx) {
			if p.ID == id {
				return p, nil
			}
		}
	}
	return Moment{}, err
}

// Deleted returns a page of Recently deleted: the moments deleted in the
// last 30 days (api.RecentlyDeletedFor), newest first, each with when it
// was deleted, and what Dad did that the engine does not have yet: a
// moment whose delete waits shows here at once (on the first page), one
// whose restore waits does not.
func (r Reads) Deleted(ctx context.Context, before string, limit int) (Page, error) {
	page := Page{Moments: []Moment{}}
	if r.SourceErr != nil {
		return page, r.SourceErr
	}
	src := r.Source
	// waiting: the moments whose last unsent delete or restore is a
	// delete (with when Dad made it), or a restore ("").
	waiting := map[string]string{}
	if u, ok := r.Unsent(ctx); ok {
		waiting = u.Deleted()
	}
	ms, next, err := src.DeletedMoments(ctx, limit, before)
	if err != nil && (before != "" || len(waiting) == 0) {
		return page, err
	}
	shown := map[string]bool{}
	for i := range ms {
		if at, ok := waiting[ms[i].ID]; ok && at == "" {
			continue // a restore of it waits
		}
		shown[ms[i].ID] = true
		page.Moments = append(page.Moments, MomentView(&ms[i], r.Viewer))
	}
	if before == "" {
		for id, at := range waiting {
			if at == "" || shown[id] {
				continue
			}
			mo, err := src.Moment(ctx, id)
			if err != nil {
				continue // not on this computer: it shows once the engine has it
			}
			v := MomentView(mo, r.Viewer)
			v.DeletedAt = at
			page.Moments = append(page.Moments, v)
		}
		SortNewestFirst(page.Moments)
	}
	if next != nil {
		page.Next = *next
	}
	return page, nil
}

// Reading returns one reading (a turn).
func (r Reads) Reading(ctx context.Context, id string) (Reading, error) {
	if r.SourceErr != nil {
		return Reading{}, r.SourceErr
	}
	t, err := r.Source.Turn(ctx, id)
	if err != nil {
		return Reading{}, err
	}
	return ReadingView(*t), nil
}

// Phrases returns the kept phrases, each with the moment it came from,
// with what Dad did that the engine does not have yet.
func (r Reads) Phrases(ctx context.Context) (res []Phrase, err error) {
	defer func() {
		if err != nil {
			return
		}
		if u, ok := r.Unsent(ctx); ok {
			u.Phrases(&res)
		}
	}()
	if r.SourceErr != nil {
		return nil, r.SourceErr
	}
	ps, err := r.Source.Phrases(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Phrase, len(ps))
	for i, ph := range ps {
		out[i] = PhraseView(ph, r.Viewer)
	}
	WithMoments(ctx, r.Source, out)
	return out, nil
}
