package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/sparkfamily/spark/api"
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

// The sentences a waiting or parked write shows.
const (
	waitingFamily = "Saved on this computer; Spark will send it when the family engine is back."
	waitingLocal  = "Saved on this computer; Spark will send it to its engine in a moment."
	parkedWords   = "The engine did not take this change. Open the Outbox to try again or discard it."
)

// waitingWords is the sentence for a write not sent yet.
func (a *App) waitingWords() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.prefs.Engine == EngineRemote {
		return waitingFamily
	}
	return waitingLocal
}

// send stores w in the outbox and waits up to writeWait for the engine to
// take it. The write returned is sent, still pending (waiting), or parked:
// parked within the wait, the engine's refusal is returned as the error,
// the write staying in the Outbox for Retry or Discard.
func (a *App) send(ctx context.Context, w outbox.Write) (*outbox.Write, error) {
	ob, err := a.queue()
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
		return now, &UIError{Code: refusedCode(now.LastCode), Message: now.LastError + ". It is kept in the Outbox, where you can try again or discard it."}
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

// checkMomentID refuses a moment id that is not a ULID, in the engine's
// words, before anything is stored.
func checkMomentID(id string) (string, error) {
	u, err := api.ParseULID(id)
	if err != nil {
		return "", badInput("%s", idWords(err))
	}
	return u, nil
}

func idWords(err error) string {
	if e, ok := api.AsError(err); ok {
		return e.Message
	}
	return err.Error()
}

// checkToken refuses an id that breaks its form (api.Check*).
func checkID(check func(string) error, id string) error {
	if err := check(id); err != nil {
		return badInput("%s", idWords(err))
	}
	return nil
}

// writeWords says what a write does, for the Outbox screen.
func writeWords(w *outbox.Write) string {
	switch w.Kind {
	case outbox.WriteNote:
		return fmt.Sprintf("Note %q", w.Text)
	case outbox.WriteCaption:
		return fmt.Sprintf("Caption %q", w.Text)
	case outbox.WriteTakenAt:
		if t, err := time.Parse(time.RFC3339Nano, w.Text); err == nil {
			return "Date taken " + t.Format("2 January 2006 15:04")
		}
		return "Date taken " + w.Text
	case outbox.WriteDelete:
		return "Delete a moment"
	case outbox.WriteKeep:
		return fmt.Sprintf("Keep %q", w.Text)
	case outbox.WriteUnkeep:
		return fmt.Sprintf("Remove %q", phraseText(w.PhraseID))
	case outbox.WriteCareful:
		return "Ask for a careful reading"
	case outbox.WriteAgain:
		return "Ask Pippa again"
	case outbox.WriteRecall:
		return "Quick recall"
	}
	return string(w.Kind)
}

func phraseText(id string) string {
	if len(id) > len("keep:") && id[:len("keep:")] == "keep:" {
		return id[len("keep:"):]
	}
	return id
}

// writeState names a write's state for the UI.
func writeState(s outbox.State) string {
	switch s {
	case outbox.Parked:
		return WriteStateParked
	case outbox.Done:
		return WriteStateSent
	}
	return WriteStateWaiting
}

// writeView is w as the Outbox shows it; waiting is the sentence of a
// write not sent yet (waitingWords), the same everywhere in the window.
func writeView(w *outbox.Write, waiting string) Write {
	v := Write{ID: w.ID, Kind: string(w.Kind), What: writeWords(w), MomentID: w.MomentID, State: writeState(w.State),
		NextTry: timeString(w.NextTry)}
	switch v.State {
	case "parked":
		v.Problem = w.LastError
	case "waiting":
		v.Waiting = waiting
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
		state = WriteStateDiscarded
	}
	a.emit("write", WriteEvent{ID: w.ID, Kind: string(w.Kind), MomentID: w.MomentID, State: state})
	if ev.Kind == outbox.EventAdded || ev.Kind == outbox.EventWaiting {
		return
	}
	if w.Kind == outbox.WriteKeep || w.Kind == outbox.WriteUnkeep {
		a.emit("phrases", struct{}{})
	}
	switch {
	case w.Kind == outbox.WriteDelete && ev.Kind == outbox.EventDone:
		a.emit("moment", MomentEvent{Kind: MomentKindDeleted, ID: w.MomentID})
	case w.MomentID != "":
		go a.emitMoment(w.MomentID)
	}
}

// emitMoment sends the "moment" event for a moment as the window shows it.
func (a *App) emitMoment(id string) {
	mo, err := a.Moments.Get(id)
	var notFound *api.Error
	switch {
	case err == nil && mo.ID != "":
		a.emit("moment", MomentEvent{Kind: MomentKindChanged, ID: id, Moment: &mo})
	case errors.As(err, &notFound) && notFound.Status == 404:
		a.emit("moment", MomentEvent{Kind: MomentKindDeleted, ID: id})
	}
}
