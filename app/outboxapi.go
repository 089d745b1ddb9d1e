package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/sparkfamily/spark/api"
	"github.com/sparkfamily/spark/outbox"
)

// Outbox shows the captures on their way to the engine and lets the user
// retry, save or discard the ones the engine refused.
type Outbox struct{ a *App }

// Entries returns every entry not yet delivered.
func (o *Outbox) Entries() ([]Entry, error) {
	ob, err := o.a.queue()
	if err != nil {
		return nil, err
	}
	es, err := undelivered(context.Background(), ob)
	if err != nil {
		return nil, err
	}
	out := make([]Entry, 0, len(es))
	for i := range es {
		if es[i].State == outbox.Done {
			continue
		}
		out = append(out, o.a.entryView(&es[i]))
	}
	return out, nil
}

// Retry sends a parked entry again.
func (o *Outbox) Retry(id string) error {
	ob, err := o.a.queue()
	if err != nil {
		return err
	}
	return ob.Retry(context.Background(), id)
}

// RetryAll sends every parked entry again; it returns how many.
func (o *Outbox) RetryAll() (int, error) {
	ob, err := o.a.queue()
	if err != nil {
		return 0, err
	}
	return ob.RetryAll(context.Background())
}

// SaveOriginal asks for a folder and copies the entry's original there,
// keeping it in the outbox; it returns the saved file's path.
func (o *Outbox) SaveOriginal(id string) (string, error) {
	ob, err := o.a.queue()
	if err != nil {
		return "", err
	}
	sh, err := o.a.getShell()
	if err != nil {
		return "", err
	}
	dir, err := sh.OpenFolder("Choose where to save the original")
	if err != nil {
		return "", fmt.Errorf("open the folder dialog: %w", err)
	}
	if dir == "" {
		return "", ErrCanceled
	}
	return saveOriginal(ob, id, dir)
}

// Discard removes an entry from the outbox for good (the UI confirms
// first, and offers Save original... before).
func (o *Outbox) Discard(id string) error {
	ob, err := o.a.queue()
	if err != nil {
		return err
	}
	_, err = ob.Discard(context.Background(), id, "")
	return err
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

// undelivered lists the outbox's entries when some are not delivered yet.
// The outbox keeps a row for every delivered entry too (its duplicate
// check needs them), and Entries lists them all; the count tells the
// usual case, nothing waiting, without reading them.
func undelivered(ctx context.Context, ob *outbox.Outbox) ([]outbox.Entry, error) {
	c, err := ob.Counts(ctx)
	if err != nil || c.Pending+c.Parked == 0 {
		return nil, err
	}
	return ob.Entries(ctx)
}

// counts are the outbox's undelivered entries and writes, waiting and
// parked, by what they are.
type counts struct{ waiting, parked Tally }

func (a *App) counts(ctx context.Context) (counts, error) {
	ob, err := a.queue()
	if err != nil {
		return counts{}, err
	}
	c, err := ob.Counts(ctx)
	if err != nil {
		return counts{}, err
	}
	out := counts{waiting: Tally{Photos: c.Pending}, parked: Tally{Photos: c.Parked}}
	byKind, err := ob.WriteCountsByKind(ctx)
	if err != nil {
		return counts{}, err
	}
	// A note is a note to Dad; every other write is a change.
	for kind, n := range byKind {
		waiting, parked := &out.waiting.Changes, &out.parked.Changes
		if kind == outbox.WriteNote {
			waiting, parked = &out.waiting.Notes, &out.parked.Notes
		}
		*waiting += n.Pending
		*parked += n.Parked
	}
	return out, nil
}

// stepLabels says each step in words.
var stepLabels = map[string]string{
	outbox.StepCreate:   "Tell the engine",
	outbox.StepCopy:     "Send the small copy",
	outbox.StepTurn:     "Ask Pippa",
	outbox.StepOriginal: "Send the original",
}

// refusedCodes are the engine's codes for a token it does not accept.
var refusedCodes = map[string]bool{api.CodeUnauthorized: true, api.CodeBadHost: true}

func (a *App) entryView(e *outbox.Entry) Entry {
	v := Entry{ID: e.ID, MomentID: e.MomentID, Name: e.Name, Thumb: outboxCopyURL(e.ID), State: string(e.State),
		Attempts: e.Attempts, CapturedAt: timeString(&e.CapturedAt), NextTry: timeString(e.NextTry),
		BytesTotal: e.Size, Steps: make([]Step, 0, len(e.Steps))}
	for _, s := range e.Steps {
		v.Steps = append(v.Steps, Step{Name: s.Name, Label: stepLabels[s.Name], Done: s.Done})
	}
	if p, ok := a.progress.get(e.ID); ok {
		v.BytesSent, v.BytesTotal = p.sent, p.total
	}
	switch {
	case e.State == outbox.Parked:
		v.Code, v.Message = e.LastCode, e.LastError
	case refusedCodes[e.LastCode]:
		v.Refused = true
		v.Reason = "The engine refused Spark's token. Check the token in Settings."
	case e.LastError != "":
		v.Reason = waitReason(e.LastCode, e.LastError)
	}
	return v
}

// waitReason words passing trouble for a person.
func waitReason(code, msg string) string {
	switch code {
	case outbox.CodeNetwork:
		return "The engine can't be reached. Spark will try again on its own."
	case outbox.CodeOutboxFile, outbox.CodeOutboxDatabase:
		return "Spark can't use its outbox on this computer right now (" + msg + "). Spark will try again on its own."
	case outbox.CodeBadAnswer, outbox.CodeFailed:
		return "Sending failed (" + msg + "). Spark will try again on its own."
	}
	return "The engine is busy (" + msg + "). Spark will try again on its own."
}

// pendingMoments shows the outbox's undelivered captures as moments,
// newest first.
func (a *App) pendingMoments(ctx context.Context) ([]Moment, error) {
	ob, err := a.queue()
	if err != nil {
		return nil, err
	}
	es, err := undelivered(ctx, ob)
	if err != nil {
		return nil, err
	}
	var out []Moment
	for i := len(es) - 1; i >= 0; i-- {
		if es[i].State != outbox.Done {
			out = append(out, pendingView(&es[i]))
		}
	}
	sortNewestFirst(out)
	return out, nil
}

func (a *App) pendingMoment(ctx context.Context, momentID string) (Moment, bool) {
	ms, err := a.pendingMoments(ctx)
	if err != nil {
		return Moment{}, false
	}
	for _, m := range ms {
		if m.ID == momentID {
			return m, true
		}
	}
	return Moment{}, false
}

func pendingView(e *outbox.Entry) Moment {
	return Moment{ID: e.MomentID, Kind: api.KindPhoto, TakenAt: timeString(e.TakenAt), CreatedAt: timeString(&e.CapturedAt),
		Thumb: outboxCopyURL(e.ID), Pending: true, EntryID: e.ID, Name: e.Name, Readings: []Reading{}}
}

// sortNewestFirst orders by moment id, which is a ULID minted at capture.
func sortNewestFirst(ms []Moment) {
	for i := 1; i < len(ms); i++ {
		for j := i; j > 0 && ms[j].ID > ms[j-1].ID; j-- {
			ms[j], ms[j-1] = ms[j-1], ms[j]
		}
	}
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
		// The card already names the file; the reason reads better without
		// its full path in front.
		msg := strings.TrimPrefix(r.Err.Error(), r.Path+": ")
		if msg != "" {
			msg = strings.ToUpper(msg[:1]) + msg[1:]
		}
		v.Error = &UIError{Code: CodeBadInput, Message: msg}
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
			a.emit("outbox", OutboxEvent{Kind: string(ev.Kind), EntryID: ev.EntryID, Step: ev.Step,
				BytesSent: ev.Sent, Reason: ev.Message, NextTry: timeString(ev.NextTry)})
		}
	}()
	return cancel
}

// Writes lists Dad's writes other than photos (notes, edits, deletes,
// phrases, careful readings, recalls) that are waiting or parked, in the
// order he made them.
func (o *Outbox) Writes() ([]Write, error) {
	ob, err := o.a.queue()
	if err != nil {
		return nil, err
	}
	ws, err := ob.UnsentWrites(context.Background())
	if err != nil {
		return nil, err
	}
	out := make([]Write, 0, len(ws))
	waiting := o.a.waitingWords()
	for i := range ws {
		out = append(out, writeView(&ws[i], waiting))
	}
	return out, nil
}

// RetryWrite sends a parked write again.
func (o *Outbox) RetryWrite(id string) error {
	ob, err := o.a.queue()
	if err != nil {
		return err
	}
	return writeNotFound(ob.RetryWrite(context.Background(), id))
}

// DiscardWrite removes a waiting or parked write for good (the UI confirms
// first).
func (o *Outbox) DiscardWrite(id string) error {
	ob, err := o.a.queue()
	if err != nil {
		return err
	}
	return writeNotFound(ob.DiscardWrite(context.Background(), id))
}

// writeNotFound words a write the outbox no longer holds.
func writeNotFound(err error) error {
	if errors.Is(err, outbox.ErrNotFound) {
		return badInput("This change is no longer waiting: it was sent or discarded.")
	}
	return err
}
