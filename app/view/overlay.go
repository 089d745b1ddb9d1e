package view

import (
	"context"
	"slices"
	"time"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/outbox"
)

// The reads (app's Moments.Page, Moments.Get, Phrases.List) show what Dad
// did that the engine does not have yet: each reads the outbox into an
// Unsent and calls one of its methods below, whatever the read came from. A waiting note shows as a
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
			m.Readings = append(m.Readings, WaitingReading())
		}
	}},
	outbox.WriteCaption: {data: typed, moment: func(m *Moment, w *outbox.Write) {
		m.Caption = w.Text
		dropAlternative(m, w.Text) // "Use this one": it is the caption now
	}},
	outbox.WriteTakenAt: {
		moment: func(m *Moment, w *outbox.Write) {
			if t, err := time.Parse(time.RFC3339Nano, w.Text); err == nil {
				m.TakenAt = TimeString(&t)
			}
		},
		data: func(v *Write, w *outbox.Write) {
			v.TakenAt = w.Text
			if t, err := time.Parse(time.RFC3339Nano, w.Text); err == nil {
				v.TakenAt = TimeString(&t)
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
			m.Readings = append(m.Readings, WaitingReading())
		}
	}},
	outbox.WriteRecall:  {},
	outbox.WriteDismiss: {data: typed, moment: func(m *Moment, w *outbox.Write) { dropAlternative(m, w.Text) }},
	outbox.WriteWords: {moment: func(m *Moment, w *outbox.Write) {
		// The engine keeps the first words read: none read yet (no
		// language) takes these; words kept already, none ("") included,
		// stay.
		if m.WordsLang == "" {
			m.Words, m.WordsLang = w.Text, w.Lang
		}
	}},
}

// dropAlternative takes the alternative with these words off m.
func dropAlternative(m *Moment, caption string) {
	m.Alternatives = slices.DeleteFunc(m.Alternatives, func(a Alternative) bool { return a.Caption == caption })
}

// typed: the Outbox words the write with the text Dad typed.
func typed(v *Write, w *outbox.Write) { v.Text = w.Text }

// Unsent is the outbox's writes that matter to a read, as app reads them
// for the state it reads with: what the overlay shows on what the engine
// (or the replica) answered.
type Unsent struct {
	// Writes are the writes not sent yet, and those delivered that the
	// replica may not hold yet, first.
	Writes []outbox.Write
	// Careful is, by moment id, the job id of its latest careful reading
	// asked.
	Careful map[string]string
	// Captures is the state of each capture in the outbox, by moment id:
	// what becomes of a full photo the engine does not have (fullPhoto).
	Captures map[string]outbox.State
	// WaitsOf is what a write not sent yet waits for (a Waits code of
	// app/writes.go, the same everywhere in the window).
	WaitsOf func(w *outbox.Write) string
	// Source is what the state reads, nil when it has none: a restore
	// waiting shows the moment from there. Viewer is whom it shows to.
	Source Corpus
	Viewer Viewer
}

// Page shows unsent writes on a page of moments: waiting notes first on
// the first page, then each moment with its unsent edits, less the
// moments with a delete waiting. With waiting notes to show, an engine
// that cannot be reached is no error.
func (u *Unsent) Page(before string, page *Page, err *error) {
	if before == "" {
		page.Moments = u.addNotes(page.Moments)
		page.Moments = u.addRestored(page.Moments)
	}
	out := page.Moments[:0]
	for i := range page.Moments {
		if u.Apply(&page.Moments[i]) {
			out = append(out, page.Moments[i])
		}
	}
	page.Moments = out
	if *err != nil && before == "" && len(page.Moments) > 0 {
		*err = nil
	}
}

// Moment shows unsent writes on one moment; a note still in the outbox
// shows from there when the engine has not got it.
func (u *Unsent) Moment(id string, mo *Moment, err *error) {
	if *err != nil || mo.ID == "" {
		for i := range u.Writes {
			if w := &u.Writes[i]; overlays[w.Kind].makes && w.MomentID == id {
				*mo, *err = NoteView(w), nil
			}
		}
	}
	if *err == nil {
		u.Apply(mo)
	}
}

// Phrases shows unsent keeps on the kept phrases and hides unsent
// removals.
func (u *Unsent) Phrases(ps *[]Phrase) {
	var keeps []Phrase
	for i := range u.Writes {
		w := &u.Writes[i]
		switch overlays[w.Kind].phrase {
		case keepPhrase:
			*ps = withoutPhrase(*ps, w.PhraseID)
			keeps = withoutPhrase(keeps, w.PhraseID)
			v := KeepView(w)
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
	if u.Source != nil {
		WithMoments(context.Background(), u.Source, keeps)
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
func (u *Unsent) waits(w *outbox.Write) string {
	switch w.State {
	case outbox.Done: // delivered; the replica has not got it yet
		return ""
	}
	return u.WaitsOf(w)
}

// addNotes puts the waiting notes the page does not hold before it,
// newest first.
func (u *Unsent) addNotes(ms []Moment) []Moment {
	have := make(map[string]bool, len(ms))
	for _, m := range ms {
		have[m.ID] = true
	}
	var notes []Moment
	for i := range u.Writes {
		if w := &u.Writes[i]; overlays[w.Kind].makes && !have[w.MomentID] {
			notes = append(notes, NoteView(w))
		}
	}
	if len(notes) == 0 {
		return ms
	}
	SortNewestFirst(notes)
	return append(notes, ms...)
}

// addRestored puts the moments whose restore waits, and that the page
// does not hold (the engine has them deleted), into it, newest first:
// read from this computer's copy, they show as soon as Dad restores them.
func (u *Unsent) addRestored(ms []Moment) []Moment {
	last := map[string]bool{} // moment id -> its last delete or restore is a restore
	for i := range u.Writes {
		w := &u.Writes[i]
		if ov := overlays[w.Kind]; ov.hides || ov.unhides {
			last[w.MomentID] = ov.unhides
		}
	}
	have := make(map[string]bool, len(ms))
	for _, m := range ms {
		have[m.ID] = true
	}
	src := u.Source
	if src == nil {
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
		v := MomentView(mo, u.Viewer)
		v.DeletedAt = ""
		ms = append(ms, v)
		added = true
	}
	if added {
		SortNewestFirst(ms)
	}
	return ms
}

// Apply shows the unsent writes of one moment on it; false when a delete
// of it waits.
func (u *Unsent) Apply(m *Moment) bool {
	if job, ok := u.Careful[m.ID]; ok {
		m.CarefulAsked, m.CarefulJobID = true, job
	}
	m.FullPhoto = u.fullPhoto(m)
	keep := true
	for i := range u.Writes {
		w := &u.Writes[i]
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

// WaitingReading stands for a practical reading asked on this computer
// and not sent yet.
func WaitingReading() Reading { return Reading{Mode: api.ModePractical, Status: ReadingWaiting} }

// NoteView shows a note still in the outbox as a moment.
func NoteView(w *outbox.Write) Moment {
	return Moment{ID: w.MomentID, Kind: api.KindNote, Caption: w.Text, CreatedAt: TimeString(&w.MadeAt),
		Pending: w.State != outbox.Done, Readings: []Reading{}}
}

// KeepView shows a keep still in the outbox as a phrase.
func KeepView(w *outbox.Write) Phrase {
	return Phrase{ID: w.PhraseID, Text: w.Text, MomentID: w.MomentID, KeptAt: TimeString(&w.MadeAt)}
}

// fullPhoto says what becomes of the full photo of a photo the engine has
// without it (Moment.FullPhoto): sent by its capture still in the outbox,
// refused and waiting there for Dad, or (no capture left) never coming.
func (u *Unsent) fullPhoto(m *Moment) string {
	if m.Kind != api.KindPhoto || m.Original != nil || m.Pending {
		return ""
	}
	st, ok := u.Captures[m.ID]
	switch {
	case !ok:
		return FullNone
	case st == outbox.Parked:
		return FullRefused
	}
	return FullSending
}

// Deleted is what waits to be deleted or restored, for Recently deleted:
// by moment id, when Dad deleted it (RFC 3339) for a moment whose last
// unsent delete or restore is a delete, "" for one whose is a restore.
func (u *Unsent) Deleted() map[string]string {
	waiting := map[string]string{}
	for i := range u.Writes {
		w := &u.Writes[i]
		switch ov := overlays[w.Kind]; {
		case ov.hides:
			waiting[w.MomentID] = TimeString(&w.MadeAt)
		case ov.unhides:
			waiting[w.MomentID] = ""
		}
	}
	return waiting
}

// ShowWrite shows w on m as the window shows a write of its kind not sent
// yet (a caption, a date taken...); nothing for a kind that changes
// nothing on its moment.
func ShowWrite(m *Moment, w *outbox.Write) {
	if show := overlays[w.Kind].moment; show != nil {
		show(m, w)
	}
}

// Hides reports whether a write of kind k hides its moment (a delete).
func Hides(k outbox.Kind) bool { return overlays[k].hides }

// DropsPhrase reports whether a write of kind k removes a kept phrase.
func DropsPhrase(k outbox.Kind) bool { return overlays[k].phrase == dropPhrase }

// TouchesPhrases reports whether a write of kind k changes the phrases
// kept (a keep, a removal).
func TouchesPhrases(k outbox.Kind) bool { return overlays[k].phrase != noPhrase }

// WriteData sets what the Outbox words a write with (words.ts
// writeWhat), from its kind's row of overlays.
func WriteData(v *Write, w *outbox.Write) {
	if d := overlays[w.Kind].data; d != nil {
		d(v, w)
	}
}

// phraseText is the text of a phrase, from its id (keep:<text>).
func phraseText(id string) string {
	if len(id) > len("keep:") && id[:len("keep:")] == "keep:" {
		return id[len("keep:"):]
	}
	return id
}
