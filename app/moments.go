package app

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/sparkfamily/spark/app/view"
	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/internal/retry"
	"github.com/sparkfamily/spark/outbox"
)

// Moments lists and edits the engine's moments, and shows the captures the
// engine does not have yet.
type Moments struct{ a *App }

// Page returns up to limit moments older than before ("" for the newest).
// The first page also carries the outbox's captures not yet in the engine,
// so a photo shows in Moments the instant it is safe.
func (m *Moments) Page(before string, limit int) (res view.Page, err error) {
	st := m.a.state()
	defer m.a.overlayPage(st, before, &res, &err) // what Dad did that the engine does not have yet
	ctx := context.Background()
	page := view.Page{Moments: []view.Moment{}} // [] rather than null for the UI
	if before == "" {
		pending, err := pendingMoments(ctx, st)
		if err != nil {
			return page, err
		}
		page.Moments = append(page.Moments, pending...)
	}
	src, err := st.corpus()
	if err != nil {
		return page, err
	}
	if before == "" {
		// With a family engine: delivered, but not in this computer's
		// copy until the next sync (sync.go).
		if sent := m.a.sentMoments(ctx, st); len(sent) > 0 {
			page.Moments = append(page.Moments, sent...)
			view.SortNewestFirst(page.Moments)
		}
	}
	ms, next, err := src.Moments(ctx, limit, before)
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
		page.Moments = append(page.Moments, view.MomentView(&ms[i], st.viewer()))
	}
	if next != nil {
		page.Next = *next
	}
	return page, nil
}

func dropPending(ms []view.Moment, id string) []view.Moment {
	out := ms[:0]
	for _, m := range ms {
		if m.ID != id || !m.Pending {
			out = append(out, m)
		}
	}
	return out
}

// Get returns one moment with its readings; a capture still in the outbox
// comes from there.
func (m *Moments) Get(id string) (res view.Moment, err error) {
	return m.a.getMoment(m.a.state(), id)
}

// getMoment is Get as st shows it.
func (a *App) getMoment(st *state, id string) (res view.Moment, err error) {
	defer a.overlayMoment(st, id, &res, &err) // what Dad did that the engine does not have yet
	ctx := context.Background()
	src, err := st.corpus()
	if err != nil {
		return view.Moment{}, err
	}
	mo, err := src.Moment(ctx, id)
	if err == nil {
		return view.MomentView(mo, st.viewer()), nil
	}
	// The engine does not have it yet, or cannot say: the outbox may.
	if e, ok := api.AsError(err); !ok || e.Status == 0 || e.Status == http.StatusNotFound || retry.Passing(e.Status) || retry.Refused(e.Status) {
		if p, ok := pendingMoment(ctx, st, id); ok {
			return p, nil
		}
		for _, p := range a.sentMoments(ctx, st) {
			if p.ID == id {
				return p, nil
			}
		}
	}
	return view.Moment{}, err
}

// SetCaption changes a moment's caption, through the outbox.
func (m *Moments) SetCaption(id, caption string) (view.Moment, error) {
	caption = strings.TrimSpace(caption)
	// Refused here, whether or not the engine can be reached, with the
	// engine's own words.
	if err := api.CheckCaption(caption); err != nil {
		return view.Moment{}, err
	}
	id, err := checkMomentID(id)
	if err != nil {
		return view.Moment{}, err
	}
	// Written from the caption the window shows: with it, a caption
	// changed meanwhile on another computer is kept beside this one.
	var base *string
	if v, err := m.a.getMoment(m.a.state(), id); err == nil && v.ID != "" {
		base = &v.Caption
	}
	return m.edit(outbox.NewCaption(id, caption, base))
}

// SetTakenAt changes when a moment was taken (RFC 3339), through the
// outbox.
func (m *Moments) SetTakenAt(id, takenAt string) (view.Moment, error) {
	t, err := time.Parse(time.RFC3339, strings.TrimSpace(takenAt))
	if err != nil {
		return view.Moment{}, refused(CodeBadTakenAt, "")
	}
	id, err = checkMomentID(id)
	if err != nil {
		return view.Moment{}, err
	}
	return m.edit(outbox.NewTakenAt(id, t))
}

// edit sends an edit and answers with the moment as the engine has it,
// or (not sent yet) as the window shows it, waiting.
func (m *Moments) edit(w outbox.Write) (view.Moment, error) {
	st := m.a.state()
	got, err := m.a.send(context.Background(), st, w)
	if err != nil {
		return view.Moment{}, err
	}
	var res api.EditMomentResponse
	if sent(got, &res) && res.Moment != nil && res.Moment.ID != "" {
		v := view.MomentView(res.Moment, st.viewer())
		m.a.overlayMoment(st, got.MomentID, &v, new(error))
		return v, nil
	}
	v, err := m.a.getMoment(st, got.MomentID)
	if err != nil || v.ID == "" {
		v = view.Moment{ID: got.MomentID, Readings: []view.Reading{}}
		view.ShowWrite(&v, got)
	}
	if v.WaitsFor == "" {
		v.WaitsFor = st.waitsFor()
	}
	return v, nil
}

// Delete deletes a moment (the UI confirms first), through the outbox.
func (m *Moments) Delete(id string) (bool, error) {
	id, err := checkMomentID(id)
	if err != nil {
		return false, err
	}
	got, err := m.a.send(context.Background(), m.a.state(), outbox.NewDelete(id))
	if err != nil {
		return false, err
	}
	var deleted bool
	if sent(got, &deleted) {
		return deleted, nil
	}
	return true, nil // hidden at once; sent when the engine is back
}

// Restore brings a deleted moment back from Recently deleted, through the
// outbox: it shows in Moments at once, and is sent when the engine is
// there.
func (m *Moments) Restore(id string) (view.Moment, error) {
	id, err := checkMomentID(id)
	if err != nil {
		return view.Moment{}, err
	}
	return m.edit(outbox.NewRestore(id))
}

// Deleted returns a page of Recently deleted: the moments deleted in the
// last 30 days (api.RecentlyDeletedFor), newest first, each with when it
// was deleted, and what Dad did that the engine does not have yet: a
// moment whose delete waits shows here at once (on the first page), one
// whose restore waits does not.
func (m *Moments) Deleted(before string, limit int) (view.Page, error) {
	st := m.a.state()
	ctx := context.Background()
	page := view.Page{Moments: []view.Moment{}}
	src, err := st.corpus()
	if err != nil {
		return page, err
	}
	// waiting: the moments whose last unsent delete or restore is a
	// delete (with when Dad made it), or a restore ("").
	waiting := map[string]string{}
	if u, ok := m.a.unsentWrites(ctx, st); ok {
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
		page.Moments = append(page.Moments, view.MomentView(&ms[i], st.viewer()))
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
			v := view.MomentView(mo, st.viewer())
			v.DeletedAt = at
			page.Moments = append(page.Moments, v)
		}
		view.SortNewestFirst(page.Moments)
	}
	if next != nil {
		page.Next = *next
	}
	return page, nil
}

// AskCareful asks for a careful reading of a moment: one per brain seat.
// jobID is minted by the UI when Dad asks; the same jobID again is the same
// request, never a second job.
func (m *Moments) AskCareful(momentID, jobID string) (view.Careful, error) {
	momentID, err := checkMomentID(momentID)
	if err != nil {
		return view.Careful{}, err
	}
	if err := api.CheckJobID(jobID); err != nil {
		return view.Careful{}, err
	}
	st := m.a.state()
	got, err := m.a.send(context.Background(), st, outbox.NewCareful(momentID, jobID))
	if err != nil {
		return view.Careful{}, err
	}
	c := view.Careful{JobID: jobID, Readings: []view.Reading{}}
	var turns []api.Turn
	if !sent(got, &turns) {
		c.WaitsFor = st.waitsFor()
		return c, nil
	}
	for _, t := range turns {
		c.Readings = append(c.Readings, view.ReadingView(t))
	}
	return c, nil
}

// ReadAgain asks Pippa for a new practical reading of a moment (after one
// failed, say); requestID is minted by the UI, so a repeat is harmless.
// While it waits on this computer the reading's Status is "waiting".
func (m *Moments) ReadAgain(momentID, requestID string) (view.Reading, error) {
	momentID, err := checkMomentID(momentID)
	if err != nil {
		return view.Reading{}, err
	}
	if err := api.CheckRequestID(requestID); err != nil {
		return view.Reading{}, err
	}
	got, err := m.a.send(context.Background(), m.a.state(), outbox.NewAgain(momentID, requestID))
	if err != nil {
		return view.Reading{}, err
	}
	var t api.Turn
	if sent(got, &t) && t.ID != "" {
		return view.ReadingView(t), nil
	}
	return view.WaitingReading(), nil
}

// AddNote writes a note as a moment, with its practical reading; id is a
// ULID minted by the UI when Dad wrote it, so the same id again is the same
// note. The note is safe on this computer once the outbox has stored it,
// so AddNote answers then, the note waiting, without waiting for the
// engine: the drain sends it behind, and the "write" and "moment" events
// tell the window when it is sent.
func (m *Moments) AddNote(id, text string) (view.Moment, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return view.Moment{}, refused(CodeEmptyNote, "")
	}
	if err := api.CheckCaption(text); err != nil {
		return view.Moment{}, err
	}
	id, err := checkMomentID(id)
	if err != nil {
		return view.Moment{}, err
	}
	st := m.a.state()
	ob, err := st.queue()
	if err != nil {
		return view.Moment{}, err
	}
	got, err := ob.AddWrite(context.Background(), outbox.NewNote(id, text))
	if err != nil {
		return view.Moment{}, err
	}
	v := view.NoteView(got)
	if v.Pending {
		v.WaitsFor = st.waitsFor()
	}
	return v, nil
}

// Reading returns one reading (a turn), to follow it until it finishes.
func (m *Moments) Reading(id string) (view.Reading, error) {
	src, err := m.a.state().corpus()
	if err != nil {
		return view.Reading{}, err
	}
	t, err := src.Turn(context.Background(), id)
	if err != nil {
		return view.Reading{}, err
	}
	return view.ReadingView(*t), nil
}

// searchLimit is how many moments a search shows.
const searchLimit = 100

// Search finds the moments whose caption, readings or kept phrases hold
// every word of q, through the engine's full-text search (GET /v1/search,
// an extension answered from its SQLite mirror: on this computer it needs
// no network), or, with a family engine, the replica's own index of the
// same text (no network either).
func (m *Moments) Search(q string) (view.SearchView, error) {
	out := view.SearchView{Query: q, Results: []view.SearchResult{}, Phrases: []view.SearchMatch{}}
	if strings.TrimSpace(q) == "" {
		return out, nil
	}
	st := m.a.state()
	src, err := st.corpus()
	if err != nil {
		return out, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	start := time.Now()
	res, err := src.Search(ctx, q, searchLimit)
	if err != nil {
		if e, ok := api.AsError(err); ok && e.Status == http.StatusNotFound {
			return out, &UIError{Code: CodeEngineTooOld}
		}
		return out, err
	}
	out.Millis = float64(time.Since(start).Microseconds()) / 1000
	for i := range res.Results {
		r := &res.Results[i]
		out.Results = append(out.Results, view.SearchResult{Moment: view.MomentView(&r.Moment, st.viewer()), Matches: view.MatchesView(r.Matches)})
	}
	out.Phrases = append(out.Phrases, view.MatchesView(res.Phrases)...)
	return out, nil
}
