package app

import (
	"context"
	"time"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/outbox"
)

// The reads (Moments.Page, Moments.Get, Phrases.List) show what Dad did
// that the engine does not have yet: each calls one of the overlay
// functions below, whatever the read came from. A waiting note shows as a
// moment (pending, like a waiting photo), a waiting caption or date shows
// its new value, a waiting delete hides the moment, a waiting keep shows
// the phrase, a waiting remove hides it; a moment with anything unsent
// carries WaitsFor, and one with a careful reading asked CarefulAsked.

// overlay is what the window shows of a write of one kind that the engine
// does not have yet: the window's row of outbox's table of kinds.
// TestOverlays_EveryKind fails when a kind of write has none, and words.ts
// (writeWhat, a record keyed by the generated kinds) does not build
// without its words.
type overlay struct {
	// moment shows it on its moment; nil when it changes nothing there.
	moment func(m *Moment, w *outbox.Write)
	// makes: it is a moment of its own until the engine has it (a note).
	makes bool
	// hides: it hides its moment (a delete), there and once sent.
	hides bool
	// unhides: it shows again a moment that a delete before it hid (a
	// restore). A moment the engine has deleted shows once it is sent.
	unhides bool
	// phrase is what it does to the phrases kept: keep shows its phrase,
	// drop hides it.
	phrase phraseChange
	// data sets what the Outbox words it with (words.ts writeWhat); nil
	// when its kind says it all.
	data func(v *Write, w *outbox.Write)
}

type phraseChange int

const (
	noPhrase phraseChange = iota
	keepPhrase
	dropPhrase
)

var overlays = map[outbox.Kind]overlay{
	outbox.WriteNote: {makes: true, data: typed, moment: func(m *Moment, w *outbox.Write) {
		if w.StepsDone < 2 { // its practical reading is not asked yet
			m.Readings = append(m.Readings, waitingReading())
		}
	}},
	outbox.WriteCaption: {data: typed, moment: func(m *Moment, w *outbox.Write) { m.Caption = w.Text }},
	outbox.WriteTakenAt: {
		moment: func(m *Moment, w *outbox.Write) {
			if t, err := time.Parse(time.RFC3339Nano, w.Text); err == nil {
				m.TakenAt = timeString(&t)
			}
		},
		data: func(v *Write, w *outbox.Write) {
			v.TakenAt = w.Text
			if t, err := time.Parse(time.RFC3339Nano, w.Text); err == nil {
				v.TakenAt = timeString(&t)
			}
		}},
	outbox.WriteDelete:  {hides: true},
	outbox.WriteRestore: {unhides: true},
	outbox.WriteKeep:    {phrase: keepPhrase, data: typed},
	outbox.WriteUnkeep:  {phrase: dropPhrase, data: func(v *Write, w *outbox.Write) { v.Text = phraseText(w.PhraseID) }},
	outbox.WriteCareful: {moment: func(m *Moment, w *outbox.Write) {
		m.CarefulAsked, m.CarefulJobID = true, w.ID
	}},
	outbox.WriteAgain: {moment: func(m *Moment, w *outbox.Write) {
		if w.State != outbox.Done { // sent: its reading comes with the sync
			m.Readings = append(m.Readings, waitingReading())
		}
	}},
	outbox.WriteRecall: {},
}

// typed: the Outbox words the write with the text Dad typed.
func typed(v *Write, w *outbox.Write) { v.Text = w.Text }

// unsent is the outbox's writes that matter to a read.
type unsent struct {
	st      *state // the state read: what a write not sent yet waits for (state.waitsOf)
	writes  []outbox.Write
	careful map[string]string // moment id -> job id of its latest careful reading asked
	// captures is the state of each capture in the outbox, by moment id:
	// what becomes of a full photo the engine does not have (fullPhoto).
	captures map[string]outbox.State
}

// unsentWrites reads the outbox's writes not sent yet, and the careful
// readings asked; ok is false when there is no outbox to read.
func (a *App) unsentWrites(ctx context.Context, s *state) (unsent, bool) {
	ob, err := s.queue()
	if err != nil {
		return unsent{}, false
	}
	ws, err := ob.UnsentWrites(ctx)
	if err != nil {
		a.log.Warn("read the outbox's writes", "err", err)
		return unsent{}, false
	}
	cs, err := ob.KindWrites(ctx, outbox.WriteCareful)
	if err != nil {
		a.log.Warn("read the outbox's careful readings", "err", err)
	}
	// Writes delivered that the replica may not hold yet still show, first.
	ws = append(a.heldWrites(ctx, s), ws...)
	u := unsent{st: s, writes: ws, careful: map[string]string{}}
	for _, c := range cs {
		u.careful[c.MomentID] = c.ID
	}
	es, err := undelivered(ctx, ob)
	if err != nil {
		a.log.Warn("read the outbox's captures", "err", err)
	}
	u.captures = make(map[string]outbox.State, len(es))
	for _, e := range es {
		u.captures[e.MomentID] = e.State
	}
	return u, true
}

// overlayPage shows unsent writes on a page of moments: waiting notes
// first on the first page, then each moment with its unsent edits, less
// the moments with a delete waiting. With waiting notes to show, an
// engine that cannot be reached is no error.
func (a *App) overlayPage(s *state, before string, page *Page, err *error) {
	u, ok := a.unsentWrites(context.Background(), s)
	if !ok {
		return
	}
	if before == "" {
		page.Moments = u.addNotes(page.Moments)
		page.Moments = u.addRestored(page.Moments)
	}
	out := page.Moments[:0]
	for i := range page.Moments {
		if u.apply(&page.Moments[i]) {
			out = append(out, page.Moments[i])
		}
	}
	page.Moments = out
	if *err != nil && before == "" && len(page.Moments) > 0 {
		*err = nil
	}
}

// overlayMoment shows unsent writes on one moment; a note still in the
// outbox shows from there when the engine has not got it.
func (a *App) overlayMoment(s *state, id string, mo *Moment, err *error) {
	u, ok := a.unsentWrites(context.Background(), s)
	if !ok {
		return
	}
	if *err != nil || mo.ID == "" {
		for i := range u.writes {
			if w := &u.writes[i]; overlays[w.Kind].makes && w.MomentID == id {
				*mo, *err = noteView(w), nil
			}
		}
	}
	if *err == nil {
		u.apply(mo)
	}
}

// overlayPhrases shows unsent keeps and hides unsent removals.
func (a *App) overlayPhrases(s *state, ps *[]Phrase, err *error) {
	if *err != nil {
		return
	}
	u, ok := a.unsentWrites(context.Background(), s)
	if !ok {
		return
	}
	var keeps []Phrase
	for i := range u.writes {
		w := &u.writes[i]
		switch overlays[w.Kind].phrase {
		case keepPhrase:
			*ps = withoutPhrase(*ps, w.PhraseID)
			keeps = withoutPhrase(keeps, w.PhraseID)
			v := keepView(w)
			v.WaitsFor = u.waits(w)
			keeps = append([]Phrase{v}, keeps...)
		case dropPhrase:
			*ps = withoutPhrase(*ps, w.PhraseID)
			keeps = withoutPhrase(keeps, w.PhraseID)
		}
	}
	if len(keeps) == 0 {
		return
	}
	// The moment each came from, as the kept ones show it.
	if src, err := s.corpus(); err == nil {
		withMoments(context.Background(), src, keeps)
	}
	*ps = append(keeps, *ps...)
}

func withoutPhrase(ps []Phrase, id string) []Phrase {
	out := ps[:0]
	for _, p := range ps {
		if p.ID != id {
			out = append(out, p)
		}
	}
	return out
}

// waits is what a write not sent yet waits for: the engine, or (parked)
// Dad.
func (u *unsent) waits(w *outbox.Write) string {
	switch w.State {
	case outbox.Done: // delivered; the replica has not got it yet
		return ""
	}
	return u.st.waitsOf(w)
}

// addNotes puts the waiting notes the page does not hold before it,
// newest first.
func (u *unsent) addNotes(ms []Moment) []Moment {
	have := make(map[string]bool, len(ms))
	for _, m := range ms {
		have[m.ID] = true
	}
	var notes []Moment
	for i := range u.writes {
		if w := &u.writes[i]; overlays[w.Kind].makes && !have[w.MomentID] {
			notes = append(notes, noteView(w))
		}
	}
	if len(notes) == 0 {
		return ms
	}
	sortNewestFirst(notes)
	return append(notes, ms...)
}

// addRestored puts the moments whose restore waits, and that the page
// does not hold (the engine has them deleted), into it, newest first:
// read from this computer's copy, they show as soon as Dad restores them.
func (u *unsent) addRestored(ms []Moment) []Moment {
	last := map[string]bool{} // moment id -> its last delete or restore is a restore
	for i := range u.writes {
		w := &u.writes[i]
		if ov := overlays[w.Kind]; ov.hides || ov.unhides {
			last[w.MomentID] = ov.unhides
		}
	}
	have := make(map[string]bool, len(ms))
	for _, m := range ms {
		have[m.ID] = true
	}
	src, err := u.st.corpus()
	if err != nil {
		return ms
	}
	added := false
	for id, restored := range last {
		if !restored || have[id] {
			continue
		}
		mo, err := src.Moment(context.Background(), id)
		if err != nil {
			continue // not on this computer: it shows once the engine has it
		}
		v := momentView(mo, u.st.viewer())
		v.DeletedAt = ""
		ms = append(ms, v)
		added = true
	}
	if added {
		sortNewestFirst(ms)
	}
	return ms
}

// apply shows the unsent writes of one moment on it; false when a delete
// of it waits.
func (u *unsent) apply(m *Moment) bool {
	if job, ok := u.careful[m.ID]; ok {
		m.CarefulAsked, m.CarefulJobID = true, job
	}
	m.FullPhoto = u.fullPhoto(m)
	keep := true
	for i := range u.writes {
		w := &u.writes[i]
		sn := overlays[w.Kind]
		if w.MomentID != m.ID || sn.phrase != noPhrase {
			continue
		}
		if sn.moment != nil {
			sn.moment(m, w)
		}
		if sn.hides {
			keep = false
		}
		if sn.unhides {
			keep = true
		}
		if m.WaitsFor == "" || w.State == outbox.Parked {
			m.WaitsFor = u.waits(w)
		}
	}
	return keep
}

// waitingReading stands for a practical reading asked on this computer
// and not sent yet.
func waitingReading() Reading { return Reading{Mode: api.ModePractical, Status: ReadingWaiting} }

// noteView shows a note still in the outbox as a moment.
func noteView(w *outbox.Write) Moment {
	return Moment{ID: w.MomentID, Kind: api.KindNote, Caption: w.Text, CreatedAt: timeString(&w.MadeAt),
		Pending: w.State != outbox.Done, Readings: []Reading{}}
}

// keepView shows a keep still in the outbox as a phrase.
func keepView(w *outbox.Write) Phrase {
	return Phrase{ID: w.PhraseID, Text: w.Text, MomentID: w.MomentID, KeptAt: timeString(&w.MadeAt)}
}

// fullPhoto says what becomes of the full photo of a photo the engine has
// without it (Moment.FullPhoto): sent by its capture still in the outbox,
// refused and waiting there for Dad, or (no capture left) never coming.
func (u *unsent) fullPhoto(m *Moment) string {
	if m.Kind != api.KindPhoto || m.Original != nil || m.Pending {
		return ""
	}
	st, ok := u.captures[m.ID]
	switch {
	case !ok:
		return FullNone
	case st == outbox.Parked:
		return FullRefused
	}
	return FullSending
}
