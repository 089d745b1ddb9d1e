package app

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/sparkfamily/spark/app/view"
	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/mirror"
	"github.com/sparkfamily/spark/outbox"
)

// Moments lists and edits the engine's moments, and shows the captures the
// engine does not have yet.
type Moments struct{ a *App }

// Page returns up to limit moments older than before ("" for the newest),
// with what Dad did that the engine does not have yet (view.Reads.Page):
// the first page also carries the outbox's captures not yet in the
// engine, so a photo shows in Moments the instant it is safe.
func (m *Moments) Page(before string, limit int) (view.Page, error) {
	return m.a.reads(m.a.state()).Page(context.Background(), before, limit)
}

// Get returns one moment with its readings; a capture still in the outbox
// comes from there.
func (m *Moments) Get(id string) (view.Moment, error) {
	return m.a.getMoment(m.a.state(), id)
}

// getMoment is Get as st shows it.
func (a *App) getMoment(st *state, id string) (view.Moment, error) {
	return a.reads(st).Moment(context.Background(), id)
}

// SetCaption changes a moment's caption, through the outbox. base is the
// caption the window showed when Dad began to type (the one he chose
// from, for "Use this one"): with it, a caption changed meanwhile on
// another computer is kept beside his rather than replaced (an
// alternative), and his is never dropped.
func (m *Moments) SetCaption(id, caption, base string) (view.Moment, error) {
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
	return m.edit(outbox.NewCaption(id, caption, &base))
}

// Dismiss sets aside an alternative caption of a moment (its words), through
// the outbox: it leaves the moment at once.
func (m *Moments) Dismiss(id, alternative string) (view.Moment, error) {
	id, err := checkMomentID(id)
	if err != nil {
		return view.Moment{}, err
	}
	return m.edit(outbox.NewDismiss(id, alternative))
}

// SetWords keeps the words the window read in a moment's photo (lang: the
// language they were read in), through the outbox. The first words of a
// photo are kept: a second reading, here or on another computer, changes
// nothing.
func (m *Moments) SetWords(id, text, lang string) error {
	id, err := checkMomentID(id)
	if err != nil {
		return err
	}
	_, err = m.a.send(context.Background(), m.a.state(), outbox.NewWords(id, text, lang))
	return err
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
		v.BroughtBack = res.Restored
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
// was deleted, and what Dad did that the engine does not have yet
// (view.Reads.Deleted).
func (m *Moments) Deleted(before string, limit int) (view.Page, error) {
	return m.a.reads(m.a.state()).Deleted(context.Background(), before, limit)
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
	return m.a.reads(m.a.state()).Reading(context.Background(), id)
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
		// Where the moments are kept can't answer (no copy on this
		// computer yet): what waits in the outbox is still found.
		if m.searchUnsent(ctx, st, q, &out); len(out.Results) > 0 {
			return out, nil
		}
		return out, err
	}
	out.Millis = float64(time.Since(start).Microseconds()) / 1000
	for i := range res.Results {
		r := &res.Results[i]
		out.Results = append(out.Results, view.SearchResult{Moment: view.MomentView(&r.Moment, st.viewer()), Matches: view.MatchesView(r.Matches)})
	}
	out.Phrases = append(out.Phrases, view.MatchesView(res.Phrases)...)
	m.searchUnsent(ctx, st, q, &out)
	return out, nil
}

// unsentSources are the writes whose text a search finds before the engine
// has them, and the source each is shown as.
var unsentSources = map[outbox.WriteKind]string{
	outbox.WriteNote:    mirror.SourceCaption,
	outbox.WriteCaption: mirror.SourceCaption,
	outbox.WriteWords:   mirror.SourceWords,
}

// searchUnsent adds to out what Dad wrote, and the words read in his
// photos, that wait in the outbox: a note, a caption or a photo's words
// not sent yet (the family engine away) is found as soon as it is
// written, as it will be once sent. A moment found both ways shows its
// text waiting in place of the engine's older one.
func (m *Moments) searchUnsent(ctx context.Context, st *state, q string, out *view.SearchView) {
	ob, err := st.queue()
	if err != nil {
		return
	}
	ws, err := ob.UnsentWrites(ctx)
	if err != nil {
		m.a.log.Warn("search the outbox's writes", "err", err)
		return
	}
	// The result of each moment found so far: the engine's (out.Results
	// is not grown before the end, so the pointers hold), or one made
	// here for a moment only the outbox's writes found.
	byID := map[string]*view.SearchResult{}
	for i := range out.Results {
		byID[out.Results[i].Moment.ID] = &out.Results[i]
	}
	var found []*view.SearchResult
	shown := map[string]bool{}
	for i := len(ws) - 1; i >= 0; i-- { // newest first
		w := &ws[i]
		source, ok := unsentSources[w.Kind]
		if !ok || w.MomentID == "" {
			continue
		}
		parts, ok := mirror.Match(q, w.Text)
		if !ok {
			continue
		}
		// The newest text of each source is the one shown.
		if shown[w.MomentID+"\x00"+source] {
			continue
		}
		shown[w.MomentID+"\x00"+source] = true
		match := view.SearchMatch{Source: source, Key: w.MomentID, Parts: view.MatchesView([]api.SearchMatch{{Parts: parts}})[0].Parts}
		if r, seen := byID[w.MomentID]; seen {
			r.Matches = append([]view.SearchMatch{match}, dropSource(r.Matches, source)...)
			continue
		}
		mo, err := m.a.getMoment(st, w.MomentID)
		if err != nil || mo.ID == "" {
			continue
		}
		r := &view.SearchResult{Moment: mo, Matches: []view.SearchMatch{match}}
		found = append(found, r)
		byID[w.MomentID] = r
	}
	if len(found) > 0 {
		// The window reads results as a list, never null.
		results := make([]view.SearchResult, 0, len(found)+len(out.Results))
		for _, r := range found {
			results = append(results, *r)
		}
		out.Results = append(results, out.Results...)
	}
}

// dropSource leaves out of ms the matches of source.
func dropSource(ms []view.SearchMatch, source string) []view.SearchMatch {
	out := ms[:0:0]
	for _, x := range ms {
		if x.Source != source {
			out = append(out, x)
		}
	}
	return out
}
