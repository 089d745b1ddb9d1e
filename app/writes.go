package app

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/sparkfamily/spark/app/view"
	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/outbox"
)

// Every write Dad makes in the window (a note, an edit, a delete, a phrase
// kept or removed, a careful reading, a reading asked again, a recall) goes
// through the outbox: stored with its ids on this computer first, then
// sent by the drain. A binding waits a short while for the engine; past
// that it answers with what Dad did, marked as waiting, never with an
// error because the engine cannot be reached.

// writeWait is how long a write binding waits for the engine before it
// answers with the write still waiting.
var writeWait = 1500 * time.Millisecond

// What a write not sent yet waits for (the WaitsFor of Moment, Phrase,
// Recall, Careful and Write): codes, worded for Dad by
// frontend/src/words.ts waitingWords (codes.ts's waitsFor).
const (
	WaitsFamily  = "family"  // the family engine, to be back
	WaitsSending = "sending" // nothing: the family engine answers, and Spark is sending it now
	WaitsLocal   = "local"   // the engine on this computer, in a moment
	WaitsParked  = "parked"  // Dad: the engine refused it, and it waits in the Outbox
)

// send stores w in the outbox and waits up to writeWait for the engine to
// take it. The write returned is sent, still pending (waiting), or parked:
// parked within the wait, the engine's refusal is returned as the error,
// the write staying in the Outbox for Retry or Discard.
func (a *App) send(ctx context.Context, s *state, w outbox.Write) (*outbox.Write, error) {
	ob, err := s.queue()
	if err != nil {
		return nil, err
	}
	got, err := ob.AddWrite(ctx, w)
	if err != nil {
		return nil, err
	}
	wctx, cancel := context.WithTimeout(ctx, writeWait)
	defer cancel()
	now, err := ob.WaitWrite(wctx, got.ID)
	if err != nil {
		// Stored, and the drain will send it: only the wait failed.
		a.log.Warn("wait for a write", "write", got.ID, "err", err)
		return got, nil
	}
	if now.State == outbox.Parked {
		return now, &UIError{Code: refusedCode(now.LastCode), Detail: now.LastError, Parked: true}
	}
	return now, nil
}

func refusedCode(code string) string {
	if code == "" {
		return CodeFailed
	}
	return code
}

// sent reports whether w reached the engine, decoding its answer into out
// (when out is not nil).
func sent(w *outbox.Write, out any) bool {
	if w == nil || w.State != outbox.Done {
		return false
	}
	if out != nil && json.Unmarshal(w.Result, out) != nil {
		return false
	}
	return true
}

// checkMomentID refuses a moment id that is not a ULID, before anything is
// stored: the engine's code (bad_id), its words the detail.
func checkMomentID(id string) (string, error) {
	u, err := api.ParseULID(id)
	if err != nil {
		return "", err
	}
	return u, nil
}

// writeState names a write's state for the UI.
func writeState(s outbox.State) string {
	switch s {
	case outbox.Parked:
		return view.WriteStateParked
	case outbox.Done:
		return view.WriteStateSent
	}
	return view.WriteStateWaiting
}

// writeView is w as the Outbox shows it: its kind and data, and, waiting,
// what it waits for (state.waitsFor, the same everywhere in the window);
// parked, the engine's code, its text the detail.
func writeView(w *outbox.Write, waitsFor string) view.Write {
	v := view.Write{ID: w.ID, Kind: string(w.Kind), MomentID: w.MomentID, State: writeState(w.State),
		NextTry: view.TimeString(w.NextTry)}
	view.WriteData(&v, w)
	switch v.State {
	case view.WriteStateParked:
		v.Code, v.Detail = refusedCode(w.LastCode), w.LastError
	case view.WriteStateWaiting:
		v.WaitsFor = waitsFor
	}
	return v
}

// writeEvent tells the UI what became of a write: the "write" event, and
// "moment" (its moment as it now shows) or "phrases" once it is sent,
// parked or discarded.
func (a *App) writeEvent(ev outbox.Event) {
	w := ev.Write
	state := writeState(w.State)
	if ev.Kind == outbox.EventRemoved {
		state = view.WriteStateDiscarded
	}
	a.emit(EventWrite, view.WriteEvent{ID: w.ID, Kind: string(w.Kind), MomentID: w.MomentID, State: state,
		BroughtBack: ev.Kind == outbox.EventDone && broughtBack(w.Result)})
	switch ev.Kind {
	case outbox.EventAdded, outbox.EventWaiting, outbox.EventStepDone, outbox.EventReset:
		return // nothing the moment shows changed yet
	}
	if view.TouchesPhrases(w.Kind) {
		a.emit(EventPhrases, struct{}{})
	}
	switch {
	case view.Hides(w.Kind) && ev.Kind == outbox.EventDone:
		a.emit(EventMoment, MomentEvent{Kind: MomentKindDeleted, ID: w.MomentID})
	case w.MomentID != "":
		go a.emitMoment(w.MomentID)
	}
}

// broughtBack says whether the engine's answer to a sent write says it
// brought its moment back from Recently deleted (api.EditMomentResponse).
func broughtBack(result json.RawMessage) bool {
	var r struct {
		Restored bool `json:"restored"`
	}
	return len(result) > 0 && json.Unmarshal(result, &r) == nil && r.Restored
}

// emitMoment sends the "moment" event for a moment as the window shows it.
func (a *App) emitMoment(id string) {
	mo, err := a.Moments.Get(id)
	var notFound *api.Error
	switch {
	case err == nil && mo.ID != "":
		a.emit(EventMoment, MomentEvent{Kind: MomentKindChanged, ID: id, Moment: &mo})
	case errors.As(err, &notFound) && notFound.Status == 404:
		a.emit(EventMoment, MomentEvent{Kind: MomentKindDeleted, ID: id})
	}
}
