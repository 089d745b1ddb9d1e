package outbox

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/sparkfamily/spark/engine/api"
)

// WriteKind names what a write other than a photo does at the engine: a
// Kind of the queue.
type WriteKind = Kind

// The kinds of write.
const (
	WriteNote    WriteKind = "note"     // create a note moment, then start its practical turn
	WriteCaption WriteKind = "caption"  // PATCH the caption
	WriteTakenAt WriteKind = "taken_at" // PATCH taken_at
	WriteDelete  WriteKind = "delete"   // DELETE the moment
	WriteRestore WriteKind = "restore"  // bring a deleted moment back
	WriteKeep    WriteKind = "keep"     // keep a phrase
	WriteUnkeep  WriteKind = "unkeep"   // remove a kept phrase
	WriteCareful WriteKind = "careful"  // start a careful job (its id is the job id)
	WriteAgain   WriteKind = "again"    // start a new practical turn (its id is the request id)
	WriteRecall  WriteKind = "recall"   // start a quick recall (its id is the recall id)
	WriteDismiss WriteKind = "dismiss"  // set aside an alternative caption (its words are the text)
	WriteWords   WriteKind = "words"    // keep the words found in a photo (its id derives from the moment's)
)

// Write is one of Dad's writes other than a photo, with every id it needs,
// minted when he acted and kept through every retry and restart.
type Write struct {
	Seq  int64     `json:"seq"` // the order Dad made them
	ID   string    `json:"id"`
	Kind WriteKind `json:"kind"`

	MomentID      string `json:"moment_id,omitempty"`
	PhraseID      string `json:"phrase_id,omitempty"`
	RequestID     string `json:"request_id,omitempty"`      // note: the create's client request id
	TurnRequestID string `json:"turn_request_id,omitempty"` // note, again
	Text          string `json:"text,omitempty"`            // note text, caption, taken_at, phrase text
	// Base is the caption a caption was written from, as Dad saw it; nil
	// when not known (the engine then replaces the caption). Two unsent
	// captions that merge keep the first's base.
	Base *string `json:"base,omitempty"`
	// Lang is the language the words of a photo were read in.
	Lang string `json:"lang,omitempty"`
	// Rev counts the times its text was replaced by a newer one before it
	// was sent: each text goes out under its own request id.
	Rev int `json:"-"`

	MadeAt    time.Time  `json:"made_at"`
	State     State      `json:"state"`
	StepsDone int        `json:"steps_done"`
	Target    string     `json:"target,omitempty"`
	Attempts  int        `json:"attempts"`
	LastCode  string     `json:"last_code,omitempty"`
	LastError string     `json:"last_error,omitempty"`
	NextTry   *time.Time `json:"next_try,omitempty"`
	// AwaitsEngine is true while the write waits because the engine did
	// not answer, and no one has seen it answer since: it goes when the
	// engine is back (EngineAnswered), not before. A write waiting
	// otherwise (its turn, a wait the engine asked for) has it false.
	AwaitsEngine bool       `json:"awaits_engine,omitempty"`
	SentAt       *time.Time `json:"sent_at,omitempty"`
	// Result is the engine's answer to the last step, once sent (a
	// moment, a turn, a job's turns, a recall, a phrase, or a bool).
	Result json.RawMessage `json:"result,omitempty"`
}

// RecallResult is the Result of a sent recall.
type RecallResult struct {
	Moment *api.Moment `json:"moment"`
	Turn   *api.Turn   `json:"turn"`
}

// NewNote is a note: its moment id (id, minted when Dad wrote it), from
// which the create's request id derives, and its practical turn's request
// id, minted at random: one derived from the moment id (as it was, "note:<id>:turn")
// let anyone who saw the moment in /v1/ops start the turn first and hand
// Dad their reading. A note already in the outbox keeps the ids it has.
func NewNote(id, text string) Write {
	return Write{ID: id, Kind: WriteNote, MomentID: id, RequestID: "note:" + id, TurnRequestID: secretID(), Text: text}
}

// secretID mints an id nobody can guess from the ids minted before it
// (ulid.Make's entropy is a seeded, monotonic math/rand: the next id
// follows from the last), for a request id that must not be taken first.
func secretID() string {
	return ulid.MustNew(ulid.Now(), rand.Reader).String()
}

// NewCaption sets a moment's caption, written from base (the caption Dad
// saw; nil when not known).
func NewCaption(momentID, caption string, base *string) Write {
	return Write{Kind: WriteCaption, MomentID: momentID, Text: caption, Base: base}
}

// NewDismiss sets aside the alternative caption with these words.
func NewDismiss(momentID, alternative string) Write {
	return Write{Kind: WriteDismiss, MomentID: momentID, Text: alternative}
}

// NewWords keeps the words found in a moment's photo, read in lang. Its
// id derives from the moment's: a second reading of the photo before the
// first is sent is the same write (and at the engine the first kept).
func NewWords(momentID, text, lang string) Write {
	return Write{ID: "words:" + momentID, Kind: WriteWords, MomentID: momentID, Text: text, Lang: lang}
}

// NewTakenAt sets when a moment was taken.
func NewTakenAt(momentID string, t time.Time) Write {
	return Write{Kind: WriteTakenAt, MomentID: momentID, Text: t.UTC().Format(time.RFC3339Nano)}
}

// NewDelete deletes a moment.
func NewDelete(momentID string) Write { return Write{Kind: WriteDelete, MomentID: momentID} }

// NewRestore brings a deleted moment back.
func NewRestore(momentID string) Write { return Write{Kind: WriteRestore, MomentID: momentID} }

// NewKeep keeps a phrase of a reading of momentID ("" for none).
func NewKeep(text, momentID string) (Write, error) {
	pid, err := api.PhraseID(text)
	if err != nil {
		return Write{}, err
	}
	return Write{Kind: WriteKeep, MomentID: momentID, PhraseID: pid, Text: text}, nil
}

// NewUnkeep removes a kept phrase.
func NewUnkeep(phraseID string) Write { return Write{Kind: WriteUnkeep, PhraseID: phraseID} }

// NewCareful asks for a careful reading of a moment; jobID is the job's id.
func NewCareful(momentID, jobID string) Write {
	return Write{ID: jobID, Kind: WriteCareful, MomentID: momentID}
}

// NewAgain asks Pippa again for a practical reading of a moment.
func NewAgain(momentID, requestID string) Write {
	return Write{ID: requestID, Kind: WriteAgain, MomentID: momentID, TurnRequestID: requestID}
}

// NewRecall starts a quick recall.
func NewRecall(recallID string) Write { return Write{ID: recallID, Kind: WriteRecall} }

// write is r as a Write.
func (r *row) write() *Write {
	w := Write{Seq: r.Seq, ID: r.ID, Kind: r.Kind, MomentID: r.MomentID, PhraseID: r.PhraseID, RequestID: r.RequestID,
		TurnRequestID: r.TurnReqID, Text: r.Text, MadeAt: r.MadeAt, State: r.State, StepsDone: r.Steps, Target: r.Target,
		Attempts: r.Attempts, LastCode: r.LastCode, LastError: r.LastError, NextTry: r.nextTry(), AwaitsEngine: r.awaitsEngine(), SentAt: r.DoneAt,
		Rev: r.Rev, Lang: r.Lang}
	if r.Base.Valid {
		w.Base = &r.Base.String
	}
	if r.Result != "" {
		w.Result = json.RawMessage(r.Result)
	}
	return &w
}

// AddWrite stores a write, synced to disk, before anything is sent, and
// wakes the drain. Its id is used as given (a second AddWrite with the same
// id returns the write already stored: once per intent) or minted when
// empty. A caption or taken_at edit replaces the same edit of the same
// moment still unsent, when nothing of that moment was written after it:
// the returned write is then the older one, carrying the new text. A
// caption or a note longer than api.MaxCaptionBytes is refused with
// api.CheckCaption's error, and nothing is stored.
func (o *Outbox) AddWrite(ctx context.Context, w Write) (*Write, error) {
	k, ok := kinds[w.Kind]
	if !ok || w.Kind == KindPhoto {
		return nil, fmt.Errorf("outbox: %q is not a kind of write (a photo is captured)", w.Kind)
	}
	if k.check != nil {
		// The engine would refuse it (400, for good): it is refused here,
		// in the engine's words, before anything is stored.
		if err := k.check(&w); err != nil {
			return nil, err
		}
	}
	if w.ID == "" {
		w.ID = ulid.Make().String()
	}
	id, err := o.storeWrite(ctx, w)
	if err != nil {
		return nil, fmt.Errorf("save the %s on this computer: %w", w.Kind, diskFull(err, 0))
	}
	got, err := o.Write(ctx, id)
	if err != nil {
		return nil, err
	}
	o.events.publish(Event{Kind: EventAdded, EntryID: got.ID, At: o.opts.Now(), Write: got})
	o.wake()
	return got, nil
}

// storeWrite inserts w, or merges it into an unsent edit, in one
// transaction; it returns the id of the row that holds it.
func (o *Outbox) storeWrite(ctx context.Context, w Write) (string, error) {
	tx, err := o.db.BeginTx(ctx, nil)
	if err != nil {
		return "", err
	}
	defer tx.Rollback()
	if kinds[w.Kind].merges {
		var id string
		err := tx.QueryRowContext(ctx, `SELECT id FROM queue WHERE kind = ? AND moment_id = ? AND state = 'pending'
			AND seq = (SELECT max(seq) FROM queue WHERE kind != 'photo' AND moment_id = ? AND state IN ('pending', 'parked'))`,
			w.Kind, w.MomentID, w.MomentID).Scan(&id)
		if err == nil {
			_, err = tx.ExecContext(ctx, `UPDATE queue SET text = ?, rev = rev + 1, attempts = 0, next_try = 0,
				last_code = '', last_error = '' WHERE id = ?`, w.Text, id)
			if err == nil {
				err = tx.Commit()
			}
			return id, err
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return "", err
		}
	}
	if id, ok, err := sameUnsent(ctx, tx, w); err != nil || ok {
		return id, err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO queue (id, kind, moment_id, phrase_id, request_id, turn_request_id, text, base, lang, made_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
		w.ID, w.Kind, w.MomentID, w.PhraseID, w.RequestID, w.TurnRequestID, w.Text, w.Base, w.Lang, formatTime(o.opts.Now()))
	if err != nil {
		return "", err
	}
	return w.ID, tx.Commit()
}

// sameUnsent finds the unsent write a keep, a removal or a delete repeats
// (its kind's repeats): the same kind, for the same phrase (or moment),
// the latest unsent one for it. Pressing Keep twice while the first waits
// is one write.
func sameUnsent(ctx context.Context, tx *sql.Tx, w Write) (string, bool, error) {
	var key string
	switch col := kinds[w.Kind].repeats; col {
	case "phrase_id":
		key = w.PhraseID
	case "moment_id":
		key = w.MomentID
	case "":
		return "", false, nil
	default:
		return "", false, fmt.Errorf("outbox: the kind %q repeats by %q, which is not a column it has", w.Kind, col)
	}
	var id string
	var kind WriteKind
	err := tx.QueryRowContext(ctx, `SELECT id, kind FROM queue WHERE kind != 'photo' AND `+kinds[w.Kind].repeats+` = ? AND state IN ('pending', 'parked')
		ORDER BY seq DESC LIMIT 1`, key).Scan(&id, &kind)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && kind != w.Kind) {
		return "", false, nil
	}
	return id, err == nil, err
}

// Write returns one write (not a photo), or ErrNotFound.
func (o *Outbox) Write(ctx context.Context, id string) (*Write, error) {
	r, err := o.row(ctx, id)
	if err != nil {
		return nil, err
	}
	if r.Kind == KindPhoto {
		return nil, fmt.Errorf("%w: %s is a photo, not a write", ErrNotFound, id)
	}
	return r.write(), nil
}

// UnsentWrites lists the writes not yet sent (waiting or parked), in the
// order Dad made them.
func (o *Outbox) UnsentWrites(ctx context.Context) ([]Write, error) {
	return o.queryWrites(ctx, "AND state IN ('pending', 'parked') ORDER BY seq")
}

// SentWritesSince lists the writes sent at t or after (a second before
// t, at worst: times are compared as stored text), in the order Dad made
// them: what a replica of the engine may not hold yet.
func (o *Outbox) SentWritesSince(ctx context.Context, t time.Time) ([]Write, error) {
	return o.queryWrites(ctx, "AND state = 'done' AND done_at >= ? ORDER BY seq", formatTime(t.Add(-time.Second)))
}

// queryWrites lists the writes (not photos) of where, which begins with
// "AND".
func (o *Outbox) queryWrites(ctx context.Context, where string, args ...any) ([]Write, error) {
	rs, err := o.queryRows(ctx, o.db, "WHERE kind != 'photo' "+where, args...)
	if err != nil {
		return nil, fmt.Errorf("list outbox writes: %w", err)
	}
	var out []Write
	for _, r := range rs {
		out = append(out, *r.write())
	}
	return out, nil
}

// WaitWrite waits until a write is sent or parked, or ctx is done, and
// returns it as it then stands (still pending when ctx ran out).
func (o *Outbox) WaitWrite(ctx context.Context, id string) (*Write, error) {
	ch, cancel := o.Subscribe()
	defer cancel()
	for {
		w, err := o.Write(context.WithoutCancel(ctx), id)
		if err != nil || w.State != Pending {
			return w, err
		}
		if !o.waitWriteEvent(ctx, ch, id) {
			return w, nil
		}
	}
}

// waitWriteEvent waits for an event of write id; false when ctx is done or
// the outbox closed.
func (o *Outbox) waitWriteEvent(ctx context.Context, ch <-chan Event, id string) bool {
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				return false
			}
			if ev.Write != nil && ev.Write.ID == id {
				return true
			}
		case <-ctx.Done():
			return false
		}
	}
}

// KindWrites lists every write of one kind (sent ones too), in the order
// Dad made them.
func (o *Outbox) KindWrites(ctx context.Context, kind WriteKind) ([]Write, error) {
	return o.queryWrites(ctx, "AND kind = ? ORDER BY seq", kind)
}
