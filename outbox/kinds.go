package outbox

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/client"
)

// A kind of entry is a value in one table, kinds: its steps, what it is
// of, what it waits for, how a second unsent one combines with the first,
// and how each step is sent. The queue, the drain and Describe read the
// table and nothing else, so a new thing Dad can do offline is one entry
// here (and, in the window, one in app's overlay table and one in
// words.ts, whose tests fail without them).
type kindSpec struct {
	// steps are the entry's steps, in order; nil is one step, named by
	// the kind.
	steps []string
	// merges: a new one replaces the text of the newest unsent one of the
	// same kind to the same moment, when nothing of that moment was
	// written after it (only the newest caption matters).
	merges bool
	// repeats names the column (moment_id or phrase_id) by which a second
	// one, while the newest unsent write of that moment or phrase is of
	// the same kind, is the same write: Keep pressed twice keeps once.
	repeats string
	// phrase: it keeps or removes a phrase, which a quick recall, made of
	// the phrases kept, waits for.
	phrase bool
	// afterPhrases: it waits for every earlier phrase kept or removed
	// that is not sent yet.
	afterPhrases bool
	// check refuses it before anything is stored, when the engine would
	// refuse it for good.
	check func(w *Write) error
	// send performs the step the write is at and returns the engine's
	// answer; nil for a photo, which the photo runner sends (photoStep).
	send func(ctx context.Context, c *client.Client, w *Write) (any, error)
	// bare: Describe words it by its kind alone; else `kind "text"`.
	bare bool
	// ofPhoto: it is read from the photo itself (its words), not written
	// by Dad: a photo discarded before the engine created its moment
	// takes it along, since no moment will ever keep it.
	ofPhoto bool
	// ownLane: each entry is delivered in a lane of its own, a few at
	// once (a photo: its uploads are long, and no other entry depends on
	// its order); else in the one lane of writes, one at a time in the
	// order Dad made them (laneOf).
	ownLane bool
}

// kinds is the table of every kind of entry.
var kinds = map[Kind]kindSpec{
	KindPhoto: {steps: Steps, ownLane: true},
	WriteNote: {steps: []string{StepCreate, StepTurn}, check: textCheck(api.CheckCaption), send: sendNote},
	WriteCaption: {merges: true, check: textCheck(api.CheckCaption),
		send: func(ctx context.Context, c *client.Client, w *Write) (any, error) {
			req := api.EditMomentRequest{Caption: &w.Text, ClientRequestID: editRequestID(w)}
			if w.Base != nil {
				req.BaseCaption, req.WrittenAt = w.Base, &w.MadeAt
			}
			return edit(ctx, c, w, req)
		}},
	WriteTakenAt: {merges: true,
		send: func(ctx context.Context, c *client.Client, w *Write) (any, error) {
			t, err := time.Parse(time.RFC3339Nano, w.Text)
			if err != nil {
				return nil, Permanent("bad_entry", fmt.Errorf("the outbox holds a bad date %q; discard this change and make it again", w.Text))
			}
			return edit(ctx, c, w, api.EditMomentRequest{TakenAt: &t, ClientRequestID: editRequestID(w)})
		}},
	WriteDelete: {repeats: "moment_id", bare: true,
		send: func(ctx context.Context, c *client.Client, w *Write) (any, error) {
			return c.DeleteMoment(ctx, w.MomentID)
		}},
	WriteRestore: {repeats: "moment_id", bare: true,
		send: func(ctx context.Context, c *client.Client, w *Write) (any, error) {
			m, _, err := c.RestoreMoment(ctx, w.MomentID)
			return m, err
		}},
	WriteKeep: {repeats: "phrase_id", phrase: true,
		send: func(ctx context.Context, c *client.Client, w *Write) (any, error) {
			p, _, err := c.KeepPhrase(ctx, api.KeepPhraseRequest{Text: w.Text, MomentID: w.MomentID})
			return p, err
		}},
	WriteUnkeep: {repeats: "phrase_id", phrase: true,
		send: func(ctx context.Context, c *client.Client, w *Write) (any, error) {
			return c.RemovePhrase(ctx, w.PhraseID)
		}},
	WriteCareful: {bare: true,
		send: func(ctx context.Context, c *client.Client, w *Write) (any, error) {
			turns, _, err := c.StartJob(ctx, w.MomentID, w.ID)
			return turns, err
		}},
	WriteAgain: {bare: true, send: startPractical},
	WriteRecall: {bare: true, afterPhrases: true,
		send: func(ctx context.Context, c *client.Client, w *Write) (any, error) {
			m, t, _, err := c.StartRecall(ctx, w.ID)
			return RecallResult{Moment: m, Turn: t}, err
		}},
	WriteDismiss: {check: textCheck(api.CheckCaption),
		send: func(ctx context.Context, c *client.Client, w *Write) (any, error) {
			return edit(ctx, c, w, api.EditMomentRequest{Dismiss: []string{api.AlternativeID(w.Text)}})
		}},
	WriteWords: {ofPhoto: true, check: func(w *Write) error { return api.CheckWords(api.Words{Text: w.Text, Lang: w.Lang}) },
		send: func(ctx context.Context, c *client.Client, w *Write) (any, error) {
			words, _, err := c.PutWords(ctx, w.MomentID, api.Words{Text: w.Text, Lang: w.Lang})
			return words, err
		}},
}

// WriteKinds lists the kinds of write (every kind but a photo), sorted:
// what the window must have an overlay and words for.
func WriteKinds() []Kind {
	var out []Kind
	for k := range kinds {
		if k != KindPhoto {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// stepsOf are the steps of an entry of kind k, in order.
func stepsOf(k Kind) []string {
	if s := kinds[k].steps; s != nil {
		return s
	}
	return []string{string(k)}
}

// kindsWhere lists, for SQL's IN, the kinds of which is true; never empty
// (a kind no entry has stands in).
func kindsWhere(is func(kindSpec) bool) string {
	var q []string
	for _, k := range WriteKinds() {
		if is(kinds[k]) {
			q = append(q, "'"+string(k)+"'")
		}
	}
	if len(q) == 0 {
		return "''"
	}
	return strings.Join(q, ", ")
}

// sendWrite performs a write's next step at the engine and returns the
// engine's answer.
func (o *Outbox) sendWrite(ctx context.Context, c *client.Client, w *Write) (any, error) {
	k, ok := kinds[w.Kind]
	if !ok || k.send == nil {
		return nil, Permanent("bad_entry", fmt.Errorf("unknown kind of write %q", w.Kind))
	}
	return k.send(ctx, c, w)
}

// sendNote creates the note's moment, then starts its practical turn.
func sendNote(ctx context.Context, c *client.Client, w *Write) (any, error) {
	if w.StepsDone > 0 {
		return startPractical(ctx, c, w)
	}
	m, _, err := c.CreateMoment(ctx, api.CreateMomentRequest{ID: w.MomentID, ClientRequestID: w.RequestID, Kind: api.KindNote, Caption: w.Text})
	if err != nil {
		return nil, err
	}
	if m != nil && m.ID != w.MomentID {
		return nil, Permanent("moment_mismatch", fmt.Errorf("the engine has request id %s as moment %s, not %s; discard this note and write it again", w.RequestID, m.ID, w.MomentID))
	}
	return m, nil
}

// startPractical starts the write's practical turn, under its request id.
func startPractical(ctx context.Context, c *client.Client, w *Write) (any, error) {
	t, _, err := c.StartTurn(ctx, w.MomentID, api.StartTurnRequest{ClientRequestID: w.TurnRequestID, Mode: api.ModePractical})
	return t, err
}

// textCheck checks a write's text with check.
func textCheck(check func(string) error) func(*Write) error {
	return func(w *Write) error { return check(w.Text) }
}

// edit sends an edit; its answer is the engine's (api.EditMomentResponse:
// the moment, and whether the edit brought it back from Recently deleted).
func edit(ctx context.Context, c *client.Client, w *Write, req api.EditMomentRequest) (any, error) {
	m, restored, err := c.EditMoment(ctx, w.MomentID, req)
	if err != nil {
		return nil, err
	}
	return api.EditMomentResponse{Moment: m, Restored: restored}, nil
}

// editRequestID is the request id an edit goes out under: its id and its
// text's revision, so that a retry of the same text is recognised and a
// newer text, merged into it before it went, is not mistaken for it.
func editRequestID(w *Write) string {
	return fmt.Sprintf("%s:%d", w.ID, w.Rev)
}

// Describe words a write for a list: `caption "letter"`.
func (w *Write) Describe() string {
	switch {
	case kinds[w.Kind].bare:
		return string(w.Kind)
	case w.Kind == WriteUnkeep:
		return "unkeep " + strings.TrimPrefix(w.PhraseID, "keep:")
	}
	return fmt.Sprintf("%s %q", w.Kind, w.Text)
}
