package outbox

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/sparkfamily/spark/api"
)

// WriteKind names what a write does at the engine.
type WriteKind string

// The kinds of write.
const (
	WriteNote    WriteKind = "note"     // create a note moment, then start its practical turn
	WriteCaption WriteKind = "caption"  // PATCH the caption
	WriteTakenAt WriteKind = "taken_at" // PATCH taken_at
	WriteDelete  WriteKind = "delete"   // DELETE the moment
	WriteKeep    WriteKind = "keep"     // keep a phrase
	WriteUnkeep  WriteKind = "unkeep"   // remove a kept phrase
	WriteCareful WriteKind = "careful"  // start a careful job (its id is the job id)
	WriteAgain   WriteKind = "again"    // start a new practical turn (its id is the request id)
	WriteRecall  WriteKind = "recall"   // start a quick recall (its id is the recall id)
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

	MadeAt    time.Time  `json:"made_at"`
	State     State      `json:"state"`
	StepsDone int        `json:"steps_done"`
	Target    string     `json:"target,omitempty"`
	Attempts  int        `json:"attempts"`
	LastCode  string     `json:"last_code,omitempty"`
	LastError string     `json:"last_error,omitempty"`
	NextTry   *time.Time `json:"next_try,omitempty"`
	SentAt    *time.Time `json:"sent_at,omitempty"`
	// Result is the engine's answer to the last step, once sent (a
	// moment, a turn, a job's turns, a recall, a phrase, or a bool).
	Result json.RawMessage `json:"result,omitempty"`

	rev int
}

// RecallResult is the Result of a sent recall.
type RecallResult struct {
	Moment *api.Moment `json:"moment"`
	Turn   *api.Turn   `json:"turn"`
}

// stepCount is how many requests deliver w: a note is created, then read.
func (w *Write) stepCount() int {
	if w.Kind == WriteNote {
		return 2
	}
	return 1
}

// NewNote is a note: its moment id (id, minted when Dad wrote it), the
// create's request id and its practical turn's request id derive from it.
func NewNote(id, text string) Write {
	return Write{ID: id, Kind: WriteNote, MomentID: id, RequestID: "note:" + id, TurnRequestID: "note:" + id + ":turn", Text: text}
}

// NewCaption sets a moment's caption.
func NewCaption(momentID, caption string) Write {
	return Write{Kind: WriteCaption, MomentID: momentID, Text: caption}
}

// NewTakenAt sets when a moment was taken.
func NewTakenAt(momentID string, t time.Time) Write {
	return Write{Kind: WriteTakenAt, MomentID: momentID, Text: t.UTC().Format(time.RFC3339Nano)}
}

// NewDelete deletes a moment.
func NewDelete(momentID string) Write { return Write{Kind: WriteDelete, MomentID: momentID} }

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

// mergeable kinds replace an unsent write of the same kind to the same
// moment: only the newest value matters.
func mergeable(k WriteKind) bool { return k == WriteCaption || k == WriteTakenAt }

const writeColumns = `seq, id, kind, moment_id, phrase_id, request_id, turn_request_id, text, made_at, rev,
	state, steps, target, attempts, next_try, last_code, last_error, sent_at, result`

func scanWrite(s scanner) (*Write, error) {
	var w Write
	var madeAt, result string
	var sentAt sql.NullString
	var nextTry int64
	err := s.Scan(&w.Seq, &w.ID, &w.Kind, &w.MomentID, &w.PhraseID, &w.RequestID, &w.TurnRequestID, &w.Text,
		&madeAt, &w.rev, &w.State, &w.StepsDone, &w.Target, &w.Attempts, &nextTry, &w.LastCode, &w.LastError, &sentAt, &result)
	if err != nil {
		return nil, err
	}
	w.MadeAt, _ = time.Parse(time.RFC3339Nano, madeAt)
	w.SentAt = parseTimePtr(sentAt)
	if nextTry > 0 && w.State == Pending {
		t := time.UnixMilli(nextTry)
		w.NextTry = &t
	}
	if result != "" {
		w.Result = json.RawMessage(result)
	}
	return &w, nil
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
	if w.Kind == "" {
		return nil, errors.New("outbox: a write needs a kind")
	}
	if w.Kind == WriteCaption || w.Kind == WriteNote {
		// The engine would refuse it (400, for good): it is refused here,
		// in the engine's words, before anything is stored.
		if err := api.CheckCaption(w.Text); err != nil {
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
	if mergeable(w.Kind) {
		var id string
		err := tx.QueryRowContext(ctx, `SELECT id FROM writes WHERE kind = ? AND moment_id = ? AND state = 'pending'
			AND seq = (SELECT max(seq) FROM writes WHERE moment_id = ? AND state IN ('pending', 'parked'))`,
			w.Kind, w.MomentID, w.MomentID).Scan(&id)
		if err == nil {
			_, err = tx.ExecContext(ctx, `UPDATE writes SET text = ?, rev = rev + 1, attempts = 0, next_try = 0,
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
	_, err = tx.ExecContext(ctx, `INSERT INTO writes (id, kind, moment_id, phrase_id, request_id, turn_request_id, text, made_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
		w.ID, w.Kind, w.MomentID, w.PhraseID, w.RequestID, w.TurnRequestID, w.Text, formatTime(o.opts.Now()))
	if err != nil {
		return "", err
	}
	return w.ID, tx.Commit()
}

// sameUnsent finds the unsent write a keep, a removal or a delete repeats:
// the same kind, for the same phrase (or moment), the latest unsent one
// for it. Pressing Keep twice while the first waits is one write.
func sameUnsent(ctx context.Context, tx *sql.Tx, w Write) (string, bool, error) {
	col, key := "phrase_id", w.PhraseID
	switch w.Kind {
	case WriteKeep, WriteUnkeep:
	case WriteDelete:
		col, key = "moment_id", w.MomentID
	default:
		return "", false, nil
	}
	var id string
	var kind WriteKind
	err := tx.QueryRowContext(ctx, `SELECT id, kind FROM writes WHERE `+col+` = ? AND state IN ('pending', 'parked')
		ORDER BY seq DESC LIMIT 1`, key).Scan(&id, &kind)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && kind != w.Kind) {
		return "", false, nil
	}
	return id, err == nil, err
}

// Write returns one write, or ErrNotFound.
func (o *Outbox) Write(ctx context.Context, id string) (*Write, error) {
	w, err := scanWrite(o.db.QueryRowContext(ctx, "SELECT "+writeColumns+" FROM writes WHERE id = ?", id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("%w: write %s", ErrNotFound, id)
	}
	if err != nil {
		return nil, fmt.Errorf("read outbox write %s: %w", id, err)
	}
	return w, nil
}

// UnsentWrites lists the writes not yet sent (waiting or parked), in the
// order Dad made them.
func (o *Outbox) UnsentWrites(ctx context.Context) ([]Write, error) {
	return o.queryWrites(ctx, "WHERE state IN ('pending', 'parked') ORDER BY seq")
}

// SentWritesSince lists the writes sent at t or after (a second before
// t, at worst: times are compared as stored text), in the order Dad made
// them: what a replica of the engine may not hold yet.
func (o *Outbox) SentWritesSince(ctx context.Context, t time.Time) ([]Write, error) {
	return o.queryWrites(ctx, "WHERE state = 'done' AND sent_at >= ? ORDER BY seq", formatTime(t.Add(-time.Second)))
}

// MomentWrites lists every write to one moment (sent ones too), in the
// order Dad made them.
func (o *Outbox) MomentWrites(ctx context.Context, momentID string) ([]Write, error) {
	return o.queryWrites(ctx, "WHERE moment_id = ? ORDER BY seq", momentID)
}

func (o *Outbox) queryWrites(ctx context.Context, where string, args ...any) ([]Write, error) {
	rows, err := o.db.QueryContext(ctx, "SELECT "+writeColumns+" FROM writes "+where, args...)
	if err != nil {
		return nil, fmt.Errorf("list outbox writes: %w", err)
	}
	defer rows.Close()
	var out []Write
	for rows.Next() {
		w, err := scanWrite(rows)
		if err != nil {
			return nil, fmt.Errorf("list outbox writes: %w", err)
		}
		out = append(out, *w)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list outbox writes: %w", err)
	}
	return out, nil
}

// WriteCounts counts the writes waiting and parked.
func (o *Outbox) WriteCounts(ctx context.Context) (Counts, error) {
	var c Counts
	err := o.db.QueryRowContext(ctx, `SELECT count(*) FILTER (WHERE state = 'pending'), count(*) FILTER (WHERE state = 'parked'),
		count(*) FILTER (WHERE state = 'done') FROM writes`).Scan(&c.Pending, &c.Parked, &c.Done)
	if err != nil {
		return c, fmt.Errorf("count outbox writes: %w", err)
	}
	return c, nil
}

// WriteCountsByKind counts the writes of each kind per state, as
// WriteCounts counts them all; a kind with no write is absent.
func (o *Outbox) WriteCountsByKind(ctx context.Context) (map[WriteKind]Counts, error) {
	rows, err := o.db.QueryContext(ctx, `SELECT kind, count(*) FILTER (WHERE state = 'pending'), count(*) FILTER (WHERE state = 'parked'),
		count(*) FILTER (WHERE state = 'done') FROM writes GROUP BY kind`)
	if err != nil {
		return nil, fmt.Errorf("count outbox writes: %w", err)
	}
	defer rows.Close()
	out := map[WriteKind]Counts{}
	for rows.Next() {
		var k WriteKind
		var c Counts
		if err := rows.Scan(&k, &c.Pending, &c.Parked, &c.Done); err != nil {
			return nil, fmt.Errorf("count outbox writes: %w", err)
		}
		out[k] = c
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("count outbox writes: %w", err)
	}
	return out, nil
}

// RetryWrite puts a parked (or waiting) write back to pending and wakes
// the drain.
func (o *Outbox) RetryWrite(ctx context.Context, id string) error {
	res, err := o.db.ExecContext(ctx, `UPDATE writes SET state = 'pending', attempts = 0, next_try = 0,
		last_code = '', last_error = '' WHERE id = ? AND state != 'done'`, id)
	if err != nil {
		return fmt.Errorf("retry write %s: %w", id, err)
	}
	w, err := o.Write(ctx, id)
	if err != nil {
		return fmt.Errorf("retry: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("retry write %s: it is already sent", id)
	}
	o.events.publish(Event{Kind: EventRetried, EntryID: id, At: o.opts.Now(), Write: w})
	o.Kick()
	return nil
}

// DiscardWrite removes a waiting or parked write for good. A delivery of
// writes in progress is stopped first (a write it had sent stays sent).
func (o *Outbox) DiscardWrite(ctx context.Context, id string) error {
	w, err := o.Write(ctx, id)
	if err != nil {
		return fmt.Errorf("discard: %w", err)
	}
	o.drain.stopWriter()
	defer o.drain.releaseWriter()
	res, err := o.db.ExecContext(ctx, "DELETE FROM writes WHERE id = ? AND state != 'done'", id)
	if err != nil {
		return fmt.Errorf("discard write %s: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("discard write %s: it is already sent", id)
	}
	w.State = "discarded"
	o.events.publish(Event{Kind: EventRemoved, EntryID: id, At: o.opts.Now(), Write: w})
	o.wake()
	return nil
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

// Describe words a write for a list: `caption "letter"`.
func (w *Write) Describe() string {
	switch w.Kind {
	case WriteDelete, WriteCareful, WriteAgain, WriteRecall:
		return string(w.Kind)
	case WriteUnkeep:
		return "unkeep " + strings.TrimPrefix(w.PhraseID, "keep:")
	}
	return fmt.Sprintf("%s %q", w.Kind, w.Text)
}

// KindWrites lists every write of one kind (sent ones too), in the order
// Dad made them.
func (o *Outbox) KindWrites(ctx context.Context, kind WriteKind) ([]Write, error) {
	return o.queryWrites(ctx, "WHERE kind = ? ORDER BY seq", kind)
}

// RetryAllWrites puts every parked write back to pending and wakes the
// drain; it returns how many.
func (o *Outbox) RetryAllWrites(ctx context.Context) (int, error) {
	ws, err := o.queryWrites(ctx, "WHERE state = 'parked' ORDER BY seq")
	if err != nil {
		return 0, err
	}
	for _, w := range ws {
		if err := o.RetryWrite(ctx, w.ID); err != nil {
			return 0, err
		}
	}
	return len(ws), nil
}
