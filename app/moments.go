package app

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/sparkfamily/spark/api"
	"github.com/sparkfamily/spark/retry"
)

// Moments lists and edits the engine's moments, and shows the captures the
// engine does not have yet.
type Moments struct{ a *App }

// Page returns up to limit moments older than before ("" for the newest).
// The first page also carries the outbox's captures not yet in the engine,
// so a photo shows in Moments the instant it is safe.
func (m *Moments) Page(before string, limit int) (Page, error) {
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
func (m *Moments) Get(id string) (Moment, error) {
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

// SetCaption changes a moment's caption.
func (m *Moments) SetCaption(id, caption string) (Moment, error) {
	caption = strings.TrimSpace(caption)
	// Refused here, whether or not the engine can be reached, with the
	// engine's own words.
	if err := api.CheckCaption(caption); err != nil {
		return Moment{}, err
	}
	cl, err := m.a.client()
	if err != nil {
		return Moment{}, err
	}
	mo, err := cl.EditMoment(context.Background(), id, api.EditMomentRequest{Caption: &caption})
	if err != nil {
		return Moment{}, err
	}
	return momentView(mo), nil
}

// SetTakenAt changes when a moment was taken (RFC 3339).
func (m *Moments) SetTakenAt(id, takenAt string) (Moment, error) {
	t, err := time.Parse(time.RFC3339, strings.TrimSpace(takenAt))
	if err != nil {
		return Moment{}, badInput("Give the date and time the moment was taken, like 2024-05-01T09:30:00Z.")
	}
	cl, err := m.a.client()
	if err != nil {
		return Moment{}, err
	}
	mo, err := cl.EditMoment(context.Background(), id, api.EditMomentRequest{TakenAt: &t})
	if err != nil {
		return Moment{}, err
	}
	return momentView(mo), nil
}

// Delete deletes a moment (the UI confirms first).
func (m *Moments) Delete(id string) (bool, error) {
	cl, err := m.a.client()
	if err != nil {
		return false, err
	}
	return cl.DeleteMoment(context.Background(), id)
}

// AskCareful starts a high-quality job on a moment: one careful reading per
// brain seat. jobID is minted by the UI, so a repeat is harmless.
func (m *Moments) AskCareful(momentID, jobID string) (Careful, error) {
	cl, err := m.a.client()
	if err != nil {
		return Careful{}, err
	}
	turns, _, err := cl.StartJob(context.Background(), momentID, jobID)
	if err != nil {
		return Careful{}, err
	}
	out := make([]Reading, len(turns))
	for i, t := range turns {
		out[i] = readingView(t)
	}
	return Careful{JobID: jobID, Readings: out}, nil
}

// ReadAgain asks Pippa for a new practical reading of a moment (after one
// failed, say); requestID is minted by the UI, so a repeat is harmless.
func (m *Moments) ReadAgain(momentID, requestID string) (Reading, error) {
	cl, err := m.a.client()
	if err != nil {
		return Reading{}, err
	}
	t, _, err := cl.StartTurn(context.Background(), momentID, api.StartTurnRequest{ClientRequestID: requestID, Mode: api.ModePractical})
	if err != nil {
		return Reading{}, err
	}
	return readingView(*t), nil
}

// AddNote writes a note as a moment; id is a ULID minted by the UI.
func (m *Moments) AddNote(id, text string) (Moment, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return Moment{}, badInput("Write something first.")
	}
	if err := api.CheckCaption(text); err != nil {
		return Moment{}, err
	}
	cl, err := m.a.client()
	if err != nil {
		return Moment{}, err
	}
	mo, _, err := cl.CreateMoment(context.Background(), api.CreateMomentRequest{ID: id, ClientRequestID: "note:" + id, Kind: api.KindNote, Caption: text})
	if err != nil {
		return Moment{}, err
	}
	return momentView(mo), nil
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
