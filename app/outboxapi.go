package app

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/sparkfamily/spark/app/view"
	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/outbox"
)

// Outbox shows the captures on their way to the engine and lets the user
// retry, save or discard the ones the engine refused.
type Outbox struct{ a *App }

// OutboxStatus is everything the window says of the outbox, from one read
// of its one queue (outbox.Status): how many photos, notes and changes
// wait, are parked and were sent, and each photo and write not sent yet.
// The status bar, the offline banner and the Outbox screen all show this
// one value, so they can never disagree.
type OutboxStatus struct {
	Waiting Tally        `json:"waiting"`
	Parked  Tally        `json:"parked"`
	Sent    Tally        `json:"sent"`
	Entries []Entry      `json:"entries"` // photos waiting or parked, oldest first
	Writes  []view.Write `json:"writes"`  // other writes waiting or parked, in the order Dad made them
	// Engine is the engine the outbox sends to, EngineLocal or
	// EngineRemote: the window names it in its words of a write refused.
	Engine string `json:"engine"`
}

// Status returns the outbox as it stands, in one read.
func (o *Outbox) Status() (OutboxStatus, error) {
	st := o.a.state()
	ob, err := st.queue()
	if err != nil {
		return OutboxStatus{Entries: []Entry{}, Writes: []view.Write{}}, err
	}
	q, err := ob.Status(context.Background())
	if err != nil {
		return OutboxStatus{Entries: []Entry{}, Writes: []view.Write{}}, err
	}
	return o.a.outboxStatus(st, q), nil
}

// outboxStatus is q as the window shows it.
func (a *App) outboxStatus(st *state, q outbox.Status) OutboxStatus {
	c := tallies(q.Counts)
	out := OutboxStatus{Engine: st.prefs.Engine, Waiting: c.waiting, Parked: c.parked, Sent: c.sent,
		Entries: make([]Entry, 0, len(q.Photos)), Writes: make([]view.Write, 0, len(q.Writes))}
	for i := range q.Photos {
		out.Entries = append(out.Entries, a.entryView(&q.Photos[i]))
	}
	owners := ownersOf(st)
	for i := range q.Writes {
		v := writeView(&q.Writes[i], st.waitsOf(&q.Writes[i]))
		if q.Writes[i].LastCode == api.CodeForbidden && (v.State == view.WriteStateParked || v.State == view.WriteStateWaiting) {
			v.Owner = owners.of(&q.Writes[i])
		}
		out.Writes = append(out.Writes, v)
	}
	return out
}

// owners finds whose a moment or a phrase is, for the writes the engine
// refused as another member's (Write.Owner), reading what the window
// reads; the phrases are read once, when first asked.
type owners struct {
	st      *state
	phrases map[string]string // phrase id: its member; nil until read
}

func ownersOf(st *state) *owners { return &owners{st: st} }

// of names the member whose moment or phrase w would have changed, when
// Spark knows it and it is not its own member; else "".
func (o *owners) of(w *outbox.Write) string {
	who := o.st.viewer()
	if who.Member == "" {
		return ""
	}
	src, err := o.st.corpus()
	if err != nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if view.DropsPhrase(w.Kind) {
		if o.phrases == nil {
			o.phrases = map[string]string{}
			ps, _ := src.Phrases(ctx)
			for _, p := range ps {
				o.phrases[p.ID] = p.Member
			}
		}
		return who.Other(o.phrases[w.PhraseID])
	}
	if w.MomentID == "" {
		return ""
	}
	m, err := src.Moment(ctx, w.MomentID)
	if err != nil {
		return ""
	}
	return who.Other(m.Member)
}

// Entries returns every photo not yet delivered (Status's Entries).
func (o *Outbox) Entries() ([]Entry, error) {
	st, err := o.Status()
	return st.Entries, err
}

// Retry sends a parked photo or write again.
func (o *Outbox) Retry(id string) error {
	ob, err := o.a.queue()
	if err != nil {
		return err
	}
	return gone(ob.Retry(context.Background(), id))
}

// RetryAll sends every parked photo and write again; it returns how many.
func (o *Outbox) RetryAll() (int, error) {
	ob, err := o.a.queue()
	if err != nil {
		return 0, err
	}
	byKind, err := ob.RetryAll(context.Background())
	n := 0
	for _, c := range byKind {
		n += c
	}
	return n, err
}

// SaveOriginal asks for a folder, saying d, and copies the entry's
// original there, keeping it in the outbox; it returns the saved file's
// path.
func (o *Outbox) SaveOriginal(id string, d FileDialog) (string, error) {
	st := o.a.state()
	ob, err := st.queue()
	if err != nil {
		return "", err
	}
	sh := st.shell
	if sh == nil {
		return "", ErrNotReady
	}
	dir, err := sh.OpenFolder(d.clean())
	if err != nil {
		return "", fmt.Errorf("open the folder dialog: %w", err)
	}
	if dir == "" {
		return "", ErrCanceled
	}
	return saveOriginal(ob, id, dir)
}

// Discard removes a photo or a write from the outbox for good (the UI
// confirms first, and offers Save original... for a photo).
func (o *Outbox) Discard(id string) error {
	ob, err := o.a.queue()
	if err != nil {
		return err
	}
	_, err = ob.Discard(context.Background(), id, "")
	return gone(err)
}

// SendNow wakes the drain so waiting entries try again at once.
func (o *Outbox) SendNow() error {
	ob, err := o.a.queue()
	if err != nil {
		return err
	}
	ob.Kick()
	return nil
}

// undelivered lists the outbox's photos not delivered yet.
func undelivered(ctx context.Context, ob *outbox.Outbox) ([]outbox.Entry, error) {
	st, err := ob.Status(ctx)
	return st.Photos, err
}

// counts are the outbox's entries waiting, parked and sent, by what they
// are to Dad.
type counts struct{ waiting, parked, sent Tally }

// tallies sorts the queue's counts by what they are to Dad: a photo, a
// note, and every other write a change.
func tallies(byKind outbox.KindCounts) counts {
	var out counts
	for kind, n := range byKind {
		waiting, parked, sent := &out.waiting.Changes, &out.parked.Changes, &out.sent.Changes
		switch kind {
		case outbox.KindPhoto:
			waiting, parked, sent = &out.waiting.Photos, &out.parked.Photos, &out.sent.Photos
		case outbox.WriteNote: // a note is a moment of its own (overlays's makes)
			waiting, parked, sent = &out.waiting.Notes, &out.parked.Notes, &out.sent.Notes
		}
		*waiting += n.Pending
		*parked += n.Parked
		*sent += n.Done
	}
	return out
}

func outboxCounts(ctx context.Context, ob *outbox.Outbox) (counts, error) {
	st, err := ob.Status(ctx)
	if err != nil {
		return counts{}, err
	}
	return tallies(st.Counts), nil
}

// refusedCodes are the engine's codes for a token it does not accept.
var refusedCodes = map[string]bool{api.CodeUnauthorized: true, api.CodeBadHost: true}

// Why an entry waits (Entry.Wait): codes, worded for Dad by
// frontend/src/words.ts waitWords (its WaitCode type lists them; a test
// checks it against these).
const (
	WaitNetwork         = "network"           // the engine can't be reached
	WaitRefused         = "refused"           // the engine refused Spark's token
	WaitForbidden       = "forbidden"         // another family member's moment, which this key may not change
	WaitTooManyReadings = "too_many_readings" // Pippa asked too often by this family member (just now, or today)
	WaitOutbox          = "outbox"            // trouble with the outbox on this computer
	WaitFailed          = "failed"            // sending failed otherwise
	WaitBusy            = "busy"              // the engine is busy (5xx, 429...)
)

func (a *App) entryView(e *outbox.Entry) Entry {
	v := Entry{ID: e.ID, MomentID: e.MomentID, Name: e.Name, Thumb: outboxCopyURL(e.ID), State: string(e.State),
		Attempts: e.Attempts, CapturedAt: view.TimeString(&e.CapturedAt), NextTry: view.TimeString(e.NextTry),
		BytesTotal: e.Size, Steps: make([]Step, 0, len(e.Steps))}
	for _, s := range e.Steps {
		v.Steps = append(v.Steps, Step{Name: s.Name, Done: s.Done})
	}
	if p, ok := a.progress.get(e.ID); ok {
		v.BytesSent, v.BytesTotal = p.sent, p.total
	}
	if s := e.Sending; s != nil && s.Step == outbox.StepOriginal {
		v.OriginalSent, v.BytesTotal = s.SentBytes, s.Size
	}
	switch {
	case e.State == outbox.Parked:
		v.Code, v.Detail = e.LastCode, e.LastError
	case e.LastError != "":
		v.Wait, v.Detail = waitCode(e.LastCode), e.LastError
		v.Refused = v.Wait == WaitRefused
	}
	return v
}

// waitCode says why an entry waits after trouble, as one of the Wait
// codes.
func waitCode(code string) string {
	switch {
	case refusedCodes[code]:
		return WaitRefused
	case code == api.CodeForbidden:
		return WaitForbidden
	case code == api.CodeTooManyReadings:
		return WaitTooManyReadings
	case code == outbox.CodeNetwork:
		return WaitNetwork
	case code == outbox.CodeOutboxFile, code == outbox.CodeOutboxDatabase:
		return WaitOutbox
	case code == outbox.CodeBadAnswer, code == outbox.CodeFailed:
		return WaitFailed
	}
	return WaitBusy
}

// pendingMoments shows the outbox's undelivered captures as moments,
// newest first.
func pendingMoments(ctx context.Context, s *state) ([]view.Moment, error) {
	ob, err := s.queue()
	if err != nil {
		return nil, err
	}
	es, err := undelivered(ctx, ob)
	if err != nil {
		return nil, err
	}
	var out []view.Moment
	for i := len(es) - 1; i >= 0; i-- {
		if es[i].State != outbox.Done {
			out = append(out, view.PendingView(&es[i]))
		}
	}
	view.SortNewestFirst(out)
	return out, nil
}

func captureView(r outbox.CaptureResult) CaptureResult {
	v := CaptureResult{Path: r.Path, Name: baseName(r.Path), Duplicate: r.Duplicate}
	if r.Entry != nil {
		v.EntryID, v.MomentID, v.Thumb = r.Entry.ID, r.Entry.MomentID, outboxCopyURL(r.Entry.ID)
	}
	if r.Duplicate {
		v.EntryID = r.DuplicateOf
	}
	if r.Err != nil {
		v.Error = &UIError{Code: notAddedCode(r.Err), Name: v.Name, Detail: r.Err.Error()}
	}
	return v
}

// progressTable keeps the bytes sent of uploads in flight, from the
// outbox's progress events.
type progressTable struct {
	mu sync.Mutex
	m  map[string]progress
}

type progress struct{ sent, total int64 }

func (t *progressTable) set(id string, p progress) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.m == nil {
		t.m = make(map[string]progress)
	}
	t.m[id] = p
}

func (t *progressTable) drop(id string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.m, id)
}

func (t *progressTable) get(id string) (progress, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p, ok := t.m[id]
	return p, ok
}

// forwardEvents sends the outbox's events to the UI as "outbox" events
// until the returned function is called.
func (a *App) forwardEvents(ob *outbox.Outbox) func() {
	ch, cancel := ob.Subscribe()
	go func() {
		for ev := range ch {
			if ev.Write != nil {
				a.writeEvent(ev)
				continue
			}
			switch ev.Kind {
			case outbox.EventProgress:
				a.progress.set(ev.EntryID, progress{ev.Sent, ev.Total})
			case outbox.EventDone, outbox.EventRemoved, outbox.EventStepDone, outbox.EventParked, outbox.EventWaiting:
				a.progress.drop(ev.EntryID)
			}
			a.emit(EventOutbox, OutboxEvent{Kind: string(ev.Kind), EntryID: ev.EntryID, Step: ev.Step,
				BytesSent: ev.Sent, Detail: ev.Message, Code: ev.Code, NextTry: view.TimeString(ev.NextTry)})
		}
	}()
	return cancel
}

// Writes lists Dad's writes other than photos (notes, edits, deletes,
// phrases, careful readings, recalls) that are waiting or parked, in the
// order he made them (Status's Writes).
func (o *Outbox) Writes() ([]view.Write, error) {
	st, err := o.Status()
	return st.Writes, err
}

// gone words an entry the outbox no longer holds.
func gone(err error) error {
	if errors.Is(err, outbox.ErrNotFound) {
		return refused(CodeNotWaiting, "")
	}
	return err
}
