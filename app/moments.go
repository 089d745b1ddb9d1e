package app

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/sparkfamily/spark/api"
	"github.com/sparkfamily/spark/outbox"
	"github.com/sparkfamily/spark/retry"
)

// Moments lists and edits the engine's moments, and shows the captures the
// engine does not have yet.
type Moments struct{ a *App }

// Page returns up to limit moments older than before ("" for the newest).
// The first page also carries the outbox's captures not yet in the engine,
// so a photo shows in Moments the instant it is safe.
func (m *Moments) Page(before string, limit int) (res Page, err error) {
	defer m.a.overlayPage(before, &res, &err) // what Dad did that the engine does not have yet
	ctx := context.Background()
	page := Page{Moments: []Moment{}} // [] rather than null for the UI
	if before == "" {
		pending, err := m.a.pendingMoments(ctx)
		if err != nil {
			return page, err
		}
		page.Moments = append(page.Moments, pending...)
	}
	cl, err := m.a.client()
	if err != nil {
		return page, err
	}
	ms, next, err := cl.Moments(ctx, limit, before)
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
		page.Moments = append(page.Moments, momentView(&ms[i]))
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

// Get returns one moment with its readings; a capture still in the outbox
// comes from there.
func (m *Moments) Get(id string) (res Moment, err error) {
	defer m.a.overlayMoment(id, &res, &err) // what Dad did that the engine does not have yet
	ctx := context.Background()
	cl, err := m.a.client()
	if err != nil {
		return Moment{}, err
	}
	mo, err := cl.Moment(ctx, id)
	if err == nil {
		return momentView(mo), nil
	}
	// The engine does not have it yet, or cannot say: the outbox may.
	if e, ok := api.AsError(err); !ok || e.Status == 0 || e.Status == http.StatusNotFound || retry.Passing(e.Status) || retry.Refused(e.Status) {
		if p, ok := m.a.pendingMoment(ctx, id); ok {
			return p, nil
		}
	}
	return Moment{}, err
}

// SetCaption changes a moment's caption, through the outbox.
func (m *Moments) SetCaption(id, caption string) (Moment, error) {
	caption = strings.TrimSpace(caption)
	// Refused here, whether or not the engine can be reached, with the
	// engine's own words.
	if err := api.CheckCaption(caption); err != nil {
		return Moment{}, err
	}
	id, err := checkMomentID(id)
	if err != nil {
		return Moment{}, err
	}
	return m.edit(outbox.NewCaption(id, caption))
}

// SetTakenAt changes when a moment was taken (RFC 3339), through the
// outbox.
func (m *Moments) SetTakenAt(id, takenAt string) (Moment, error) {
	t, err := time.Parse(time.RFC3339, strings.TrimSpace(takenAt))
	if err != nil {
		return Moment{}, badInput("Give the date and time the moment was taken, like 2024-05-01T09:30:00Z.")
	}
	id, err = checkMomentID(id)
	if err != nil {
		return Moment{}, err
	}
	return m.edit(outbox.NewTakenAt(id, t))
}

// edit sends an edit and answers with the moment as the engine has it,
// or (not sent yet) as the window shows it, waiting.
func (m *Moments) edit(w outbox.Write) (Moment, error) {
	got, err := m.a.send(context.Background(), w)
	if err != nil {
		return Moment{}, err
	}
	var mo api.Moment
	if sent(got, &mo) && mo.ID != "" {
		v := momentView(&mo)
		m.a.overlayMoment(got.MomentID, &v, new(error))
		return v, nil
	}
	v, err := m.Get(got.MomentID)
	if err != nil || v.ID == "" {
		v = Moment{ID: got.MomentID, Readings: []Reading{}}
		applyEdit(&v, got)
	}
	if v.Waiting == "" {
		v.Waiting = m.a.waitingWords()
	}
	return v, nil
}

// Delete deletes a moment (the UI confirms first), through the outbox.
func (m *Moments) Delete(id string) (bool, error) {
	id, err := checkMomentID(id)
	if err != nil {
		return false, err
	}
	got, err := m.a.send(context.Background(), outbox.NewDelete(id))
	if err != nil {
		return false, err
	}
	var deleted bool
	if sent(got, &deleted) {
		return deleted, nil
	}
	return true, nil // hidden at once; sent when the engine is back
}

// AskCareful asks for a careful reading of a moment: one per brain seat.
// jobID is minted by the UI when Dad asks; the same jobID again is the same
// request, never a second job.
func (m *Moments) AskCareful(momentID, jobID string) (Careful, error) {
	momentID, err := checkMomentID(momentID)
	if err != nil {
		return Careful{}, err
	}
	if err := checkID(api.CheckJobID, jobID); err != nil {
		return Careful{}, err
	}
	got, err := m.a.send(context.Background(), outbox.NewCareful(momentID, jobID))
	if err != nil {
		return Careful{}, err
	}
	c := Careful{JobID: jobID, Readings: []Reading{}}
	var turns []api.Turn
	if !sent(got, &turns) {
		c.Waiting = m.a.waitingWords()
		return c, nil
	}
	for _, t := range turns {
		c.Readings = append(c.Readings, readingView(t))
	}
	return c, nil
}

// ReadAgain asks Pippa for a new practical reading of a moment (after one
// failed, say); requestID is minted by the UI, so a repeat is harmless.
// While it waits on this computer the reading's Status is "waiting".
func (m *Moments) ReadAgain(momentID, requestID string) (Reading, error) {
	momentID, err := checkMomentID(momentID)
	if err != nil {
		return Reading{}, err
	}
	if err := checkID(api.CheckRequestID, requestID); err != nil {
		return Reading{}, err
	}
	got, err := m.a.send(context.Background(), outbox.NewAgain(momentID, requestID))
	if err != nil {
		return Reading{}, err
	}
	var t api.Turn
	if sent(got, &t) && t.ID != "" {
		return readingView(t), nil
	}
	return waitingReading(), nil
}

// AddNote writes a note as a moment, with its practical reading; id is a
// ULID minted by the UI when Dad wrote it, so the same id again is the same
// note.
func (m *Moments) AddNote(id, text string) (Moment, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return Moment{}, badInput("Write something first.")
	}
	if err := api.CheckCaption(text); err != nil {
		return Moment{}, err
	}
	id, err := checkMomentID(id)
	if err != nil {
		return Moment{}, err
	}
	ctx := context.Background()
	got, err := m.a.send(ctx, outbox.NewNote(id, text))
	if err != nil {
		return Moment{}, err
	}
	if sent(got, nil) {
		if cl, err := m.a.client(); err == nil {
			if mo, err := cl.Moment(ctx, id); err == nil {
				return momentView(mo), nil
			}
		}
	}
	v := noteView(got)
	v.Waiting = m.a.waitingWords()
	if sent(got, nil) {
		v.Waiting, v.Pending = "", false
	}
	return v, nil
}

// Reading returns one reading (a turn), to follow it until it finishes.
func (m *Moments) Reading(id string) (Reading, error) {
	cl, err := m.a.client()
	if err != nil {
		return Reading{}, err
	}
	t, err := cl.Turn(context.Background(), id)
	if err != nil {
		return Reading{}, err
	}
	return readingView(*t), nil
}
