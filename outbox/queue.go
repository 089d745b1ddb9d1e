package outbox

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/client"
	"github.com/sparkfamily/spark/internal/retry"
)

// The outbox is one queue (the queue table): a photo and each of Dad's
// other writes are one kind of entry, with ordered steps, run by one step
// runner (deliver), failed, parked, retried and discarded by one path.
// Entry (a photo) and Write (any other write) are views of its rows.

// Kind names what an entry of the queue is: a photo, or one of Dad's
// other writes (the WriteKind constants).
type Kind string

// KindPhoto is a captured photo: its moment, small copy, practical turn and
// original.
const KindPhoto Kind = "photo"

// row is one entry of the queue, as stored.
type row struct {
	Seq                                      int64
	ID                                       string
	Kind                                     Kind
	MomentID, PhraseID, RequestID, TurnReqID string
	Text                                     string
	Rev                                      int
	Base                                     sql.NullString
	Lang                                     string
	CopyID, OriginalID, Source, Name, Format string
	ContentType                              string
	Size                                     int64
	SHA256                                   string
	CopySize                                 int64
	CopySHA256                               string
	CopyWidth, CopyHeight                    int
	TakenAt                                  *time.Time
	MadeAt                                   time.Time
	State                                    State
	Steps                                    int
	Target, TurnID                           string
	Attempts                                 int
	NextTry                                  int64
	LastCode, LastError                      string
	DoneAt                                   *time.Time
	Result                                   string
	SendingStep                              string // sending.go
	SendingHeld, SendingSize                 int64
	Unreachable                              bool // the last failure: the engine did not answer (Verdict.Unreachable)
}

const rowColumns = `seq, id, kind, moment_id, phrase_id, request_id, turn_request_id, text, rev,
	copy_id, original_id, source, name, format, content_type, size, sha256, copy_size, copy_sha256, copy_width, copy_height,
	taken_at, made_at, state, steps, target, turn_id, attempts, next_try, last_code, last_error, done_at, result,
	sending_step, sending_held, sending_size, unreachable, base, lang`

type scanner interface{ Scan(dest ...any) error }

func scanRow(s scanner) (*row, error) {
	var r row
	var takenAt, doneAt sql.NullString
	var madeAt string
	err := s.Scan(&r.Seq, &r.ID, &r.Kind, &r.MomentID, &r.PhraseID, &r.RequestID, &r.TurnReqID, &r.Text, &r.Rev,
		&r.CopyID, &r.OriginalID, &r.Source, &r.Name, &r.Format, &r.ContentType, &r.Size, &r.SHA256, &r.CopySize, &r.CopySHA256,
		&r.CopyWidth, &r.CopyHeight, &takenAt, &madeAt, &r.State, &r.Steps, &r.Target, &r.TurnID, &r.Attempts, &r.NextTry,
		&r.LastCode, &r.LastError, &doneAt, &r.Result, &r.SendingStep, &r.SendingHeld, &r.SendingSize, &r.Unreachable, &r.Base, &r.Lang)
	if err != nil {
		return nil, err
	}
	r.TakenAt = parseTimePtr(takenAt)
	r.DoneAt = parseTimePtr(doneAt)
	r.MadeAt, _ = time.Parse(time.RFC3339Nano, madeAt)
	return &r, nil
}

// nextTry is when a waiting entry is tried again, nil when it is not
// waiting after trouble.
func (r *row) nextTry() *time.Time {
	if r.NextTry <= 0 || r.State != Pending {
		return nil
	}
	t := time.UnixMilli(r.NextTry)
	return &t
}

// awaitsEngine reports whether the entry waits for the engine to answer
// again: it waits after trouble of that kind, and no one saw the engine
// answer since (EngineAnswered makes it due at once).
func (r *row) awaitsEngine() bool { return r.Unreachable && r.nextTry() != nil }

// eventWrite is the Write an event of r carries: nil for a photo.
func (r *row) eventWrite() *Write {
	if r.Kind == KindPhoto {
		return nil
	}
	return r.write()
}

// row reads one entry of the queue, or ErrNotFound.
func (o *Outbox) row(ctx context.Context, id string) (*row, error) {
	r, err := scanRow(o.db.QueryRowContext(ctx, "SELECT "+rowColumns+" FROM queue WHERE id = ?", id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	if err != nil {
		return nil, fmt.Errorf("read outbox entry %s: %w", id, err)
	}
	return r, nil
}

func (o *Outbox) queryRows(ctx context.Context, q querier2, where string, args ...any) ([]*row, error) {
	rows, err := q.QueryContext(ctx, "SELECT "+rowColumns+" FROM queue "+where, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*row
	for rows.Next() {
		r, err := scanRow(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

type querier2 interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// deliver is the step runner: it runs r's remaining steps in order at the
// engine, recording each in the transaction that records its result, and
// reports whether r was delivered. A failed step makes r wait or parks it
// (fail). Steps done at another engine are forgotten first: that engine's
// work is not this one's (the ids minted when Dad acted make a replay
// harmless).
func (o *Outbox) deliver(ctx context.Context, c *client.Client, target Target, r *row) bool {
	if r.State != Pending {
		return false
	}
	// Never record anything once stopped; results already known are
	// recorded even if the stop comes right after.
	record := context.WithoutCancel(ctx)
	if r.Steps > 0 && r.Target != target.URL {
		if _, err := o.db.ExecContext(record, `UPDATE queue SET steps = 0, turn_id = '', target = '',
			sending_step = '', sending_held = 0, sending_size = 0 WHERE id = ? AND steps = ?`, r.ID, r.Steps); err != nil {
			o.logOnce("outbox: cannot reset entry "+r.ID, err)
			return false
		}
		o.events.publish(Event{Kind: EventReset, EntryID: r.ID, At: o.opts.Now(), Write: r.eventWrite(),
			Message: fmt.Sprintf("the engine changed from %s to %s; delivering again from the first step", r.Target, target.URL)})
		r.Steps, r.TurnID, r.Target = 0, "", ""
		r.SendingStep, r.SendingHeld, r.SendingSize = "", 0, 0
	}
	steps := stepsOf(r.Kind)
	for r.Steps < len(steps) {
		if ctx.Err() != nil {
			return false
		}
		step := steps[r.Steps]
		res, err := o.runStep(ctx, c, r, step)
		if err != nil {
			if ctx.Err() == nil {
				o.fail(record, r, step, err)
			}
			return false
		}
		if !o.stepDone(record, r, target, step, res) {
			return false
		}
	}
	return true
}

// runStep performs one step of r at the engine and returns the engine's
// answer.
func (o *Outbox) runStep(ctx context.Context, c *client.Client, r *row, step string) (any, error) {
	if r.Kind == KindPhoto {
		return o.photoStep(ctx, c, r.entry(), step)
	}
	return o.sendWrite(ctx, c, r.write())
}

// stepDone records a step the engine acknowledged, and after the last one
// the entry as delivered (a photo's original hash with it), in one
// transaction. It reports false when the entry changed meanwhile (a newer
// caption merged into it, a discard): it is then sent again, or not at
// all.
func (o *Outbox) stepDone(ctx context.Context, r *row, target Target, step string, res any) bool {
	now := o.opts.Now()
	last := r.Steps+1 == len(stepsOf(r.Kind))
	turnID, result := r.TurnID, ""
	if r.Kind == KindPhoto {
		if t, ok := res.(*api.Turn); ok && t != nil {
			turnID = t.ID
		}
	} else if b, err := json.Marshal(res); err == nil {
		result = string(b)
	}
	state, doneAt := Pending, any(nil)
	if last {
		state, doneAt = Done, formatTime(now)
	}
	err := func() error {
		tx, err := o.db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		up, err := tx.ExecContext(ctx, `UPDATE queue SET steps = steps + 1, target = ?, turn_id = ?, result = ?, state = ?, done_at = ?,
			attempts = 0, next_try = 0, last_code = '', last_error = '', sending_step = '', sending_held = 0, sending_size = 0
			WHERE id = ? AND steps = ? AND rev = ? AND state = 'pending'`,
			target.URL, turnID, result, state, doneAt, r.ID, r.Steps, r.Rev)
		if err != nil {
			return err
		}
		if n, _ := up.RowsAffected(); n == 0 {
			return errChanged
		}
		if last && r.Kind == KindPhoto {
			if _, err := tx.ExecContext(ctx, `INSERT INTO delivered (sha256, entry_id, moment_id, delivered_at)
				VALUES (?, ?, ?, ?) ON CONFLICT (sha256) DO NOTHING`, r.SHA256, r.ID, r.MomentID, formatTime(now)); err != nil {
				return err
			}
		}
		return tx.Commit()
	}()
	if errors.Is(err, errChanged) {
		return false
	}
	if err != nil {
		// The step is done at the engine; repeating it is harmless.
		o.fail(ctx, r, step, fmt.Errorf("record step %s: %w", step, err))
		return false
	}
	r.Steps++
	r.Target, r.TurnID, r.Result, r.State = target.URL, turnID, result, state
	r.Attempts, r.NextTry, r.LastCode, r.LastError = 0, 0, "", ""
	r.SendingStep, r.SendingHeld, r.SendingSize = "", 0, 0
	if last {
		r.DoneAt = &now
	}
	o.events.publish(Event{Kind: EventStepDone, EntryID: r.ID, Step: step, At: now, Write: r.eventWrite()})
	// The engine took a step: whatever waits because it did not answer
	// need wait no longer.
	o.EngineAnswered(target.URL)
	if last {
		if r.Kind == KindPhoto {
			// A crash before this removal leaves a folder that Open
			// removes; one that cannot be removed now is remembered
			// (removals.go).
			o.removeDelivered(ctx, r.ID)
		}
		o.events.publish(Event{Kind: EventDone, EntryID: r.ID, At: o.opts.Now(), Write: r.eventWrite()})
	}
	return true
}

var errChanged = errors.New("outbox: the entry changed meanwhile")

// fail records a failed step: the entry waits (passing trouble, back-off
// with full jitter, Retry-After as a floor) or is parked (a refusal).
func (o *Outbox) fail(ctx context.Context, r *row, step string, err error) {
	v := Classify(err)
	now := o.opts.Now()
	if v.Park {
		if _, dbErr := o.db.ExecContext(ctx, `UPDATE queue SET state = 'parked', attempts = attempts + 1, next_try = 0,
			last_code = ?, last_error = ?, unreachable = 0 WHERE id = ? AND state = 'pending'`, v.Code, v.Message, r.ID); dbErr != nil {
			o.logOnce("outbox: cannot park entry "+r.ID, dbErr)
			return
		}
		o.log.Warn("outbox: entry parked", "entry", r.ID, "kind", r.Kind, "name", r.Name, "step", step, "code", v.Code, "message", v.Message)
		r.State, r.Attempts, r.NextTry, r.LastCode, r.LastError = Parked, r.Attempts+1, 0, v.Code, v.Message
		o.events.publish(Event{Kind: EventParked, EntryID: r.ID, Step: step, Code: v.Code, Message: v.Message, At: now, Write: r.eventWrite()})
		return
	}
	b := retry.Backoff{Base: o.opts.BackoffBase, Cap: o.opts.BackoffCap, Rand: o.opts.Rand}
	next := now.Add(b.Wait(r.Attempts+1, v.RetryAfter))
	if _, dbErr := o.db.ExecContext(ctx, `UPDATE queue SET attempts = attempts + 1, next_try = ?, last_code = ?, last_error = ?,
		unreachable = ? WHERE id = ? AND state = 'pending'`, max(next.UnixMilli(), 1), v.Code, v.Message, v.Unreachable, r.ID); dbErr != nil {
		o.logOnce("outbox: cannot record trouble for entry "+r.ID, dbErr)
	} else if v.Unreachable {
		o.drain.sawAway()
	}
	o.logOnce("outbox: waiting after trouble", err)
	r.Attempts, r.NextTry, r.LastCode, r.LastError = r.Attempts+1, max(next.UnixMilli(), 1), v.Code, v.Message
	o.events.publish(Event{Kind: EventWaiting, EntryID: r.ID, Step: step, Code: v.Code,
		Reason: v.Message, Message: v.Message, NextTry: &next, At: now, Write: r.eventWrite()})
}

// Retry puts a parked (or waiting) entry, a photo or any other write, back
// to pending with its attempts reset, and wakes the drain.
func (o *Outbox) Retry(ctx context.Context, id string) error {
	res, err := o.db.ExecContext(ctx, `UPDATE queue SET state = 'pending', attempts = 0, next_try = 0,
		last_code = '', last_error = '' WHERE id = ? AND state != 'done'`, id)
	if err != nil {
		return fmt.Errorf("retry %s: %w", id, err)
	}
	r, err := o.row(ctx, id)
	if err != nil {
		return fmt.Errorf("retry: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("retry %s: it is already sent", id)
	}
	o.events.publish(Event{Kind: EventRetried, EntryID: id, At: o.opts.Now(), Write: r.eventWrite()})
	o.Kick()
	return nil
}

// RetryAll puts every parked entry back to pending and wakes the drain. It
// returns how many of each kind it moved.
func (o *Outbox) RetryAll(ctx context.Context) (map[Kind]int, error) {
	rows, err := o.db.QueryContext(ctx, `UPDATE queue SET state = 'pending', attempts = 0, next_try = 0,
		last_code = '', last_error = '' WHERE state = 'parked' RETURNING id`)
	if err != nil {
		return nil, fmt.Errorf("retry all: %w", err)
	}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, fmt.Errorf("retry all: %w", err)
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("retry all: %w", err)
	}
	now := o.opts.Now()
	out := map[Kind]int{}
	for _, id := range ids {
		r, err := o.row(ctx, id)
		if err != nil {
			continue // discarded meanwhile
		}
		out[r.Kind]++
		o.events.publish(Event{Kind: EventRetried, EntryID: id, At: now, Write: r.eventWrite()})
	}
	o.Kick()
	return out, nil
}

// Discard removes an entry for good: a photo with its files, or a write
// not sent yet (a sent write is the engine's now, and stays). When
// exportDir is not empty a photo's original is first copied there by
// ExportOriginal, so the user keeps the photo; it returns the exported
// path. Files that cannot be removed yet (a file held open on Windows)
// are removed later; see Leftovers. A delivery in progress of the entry
// is stopped first.
func (o *Outbox) Discard(ctx context.Context, id, exportDir string) (string, error) {
	r, err := o.row(ctx, id)
	if err != nil {
		return "", fmt.Errorf("discard: %w", err)
	}
	if r.Kind != KindPhoto && exportDir != "" {
		return "", fmt.Errorf("discard %s: a %s has no photo to save", id, r.Kind)
	}
	o.drain.stopLane(laneOf(r))
	defer o.drain.releaseLane(laneOf(r))
	var exported string
	if exportDir != "" {
		if exported, err = o.ExportOriginal(ctx, id, exportDir); err != nil {
			return "", fmt.Errorf("discard %s: %w", id, err)
		}
	}
	// A photo the engine never created takes the writes read from it
	// (its words) along: no moment will ever keep them. Its steps are
	// read again now that its delivery is stopped.
	var along []Write
	if r.Kind == KindPhoto && r.MomentID != "" {
		if now, err := o.row(ctx, id); err == nil {
			r = now
		}
	}
	if r.Kind == KindPhoto && r.Steps == 0 && r.MomentID != "" {
		if along, err = o.queryWrites(ctx, "AND moment_id = ? AND state != 'done' AND kind IN ("+
			kindsWhere(func(k kindSpec) bool { return k.ofPhoto })+")", r.MomentID); err != nil {
			return "", fmt.Errorf("discard %s: %w", id, err)
		}
	}
	// The row goes with its files' removal recorded, in one transaction,
	// so the files are never forgotten: removed now, or (a file held open)
	// remembered and removed later, never an error.
	if err := o.forget(ctx, r, along...); err != nil {
		return "", fmt.Errorf("discard %s: %w", id, err)
	}
	for i := range along {
		along[i].State = "discarded"
		o.events.publish(Event{Kind: EventRemoved, EntryID: along[i].ID, At: o.opts.Now(), Write: &along[i]})
	}
	ev := Event{Kind: EventRemoved, EntryID: id, At: o.opts.Now()}
	if r.Kind == KindPhoto {
		o.removeFiles(ctx, "files/"+id, id, ReasonDiscarded)
	} else {
		w := r.write()
		w.State = "discarded"
		ev.Write = w
		o.wake()
	}
	o.events.publish(ev)
	return exported, nil
}

// KindCounts is how many entries of one kind are in each state.
type KindCounts map[Kind]Counts

// Status is the queue at one instant: how many entries of each kind are
// waiting, parked and delivered, and every entry not delivered yet, in
// the order they were made, read in one transaction so that no two of
// them can disagree.
type Status struct {
	Counts KindCounts `json:"counts"`
	// Unsent are the photos and writes waiting or parked, oldest first.
	Photos []Entry `json:"photos"`
	Writes []Write `json:"writes"`
}

// Status reads the queue's Status in one transaction.
func (o *Outbox) Status(ctx context.Context) (Status, error) {
	st := Status{Counts: KindCounts{}, Photos: []Entry{}, Writes: []Write{}}
	tx, err := o.db.BeginTx(ctx, nil)
	if err != nil {
		return st, fmt.Errorf("read the outbox: %w", err)
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, `SELECT kind, count(*) FILTER (WHERE state = 'pending'), count(*) FILTER (WHERE state = 'parked'),
		count(*) FILTER (WHERE state = 'done') FROM queue GROUP BY kind`)
	if err != nil {
		return st, fmt.Errorf("read the outbox: %w", err)
	}
	for rows.Next() {
		var k Kind
		var c Counts
		if err := rows.Scan(&k, &c.Pending, &c.Parked, &c.Done); err != nil {
			rows.Close()
			return st, fmt.Errorf("read the outbox: %w", err)
		}
		st.Counts[k] = c
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return st, fmt.Errorf("read the outbox: %w", err)
	}
	unsent, err := o.queryRows(ctx, tx, "WHERE state IN ('pending', 'parked') ORDER BY seq")
	if err != nil {
		return st, fmt.Errorf("read the outbox: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return st, fmt.Errorf("read the outbox: %w", err)
	}
	for _, r := range unsent {
		if r.Kind == KindPhoto {
			st.Photos = append(st.Photos, *r.entry())
		} else {
			st.Writes = append(st.Writes, *r.write())
		}
	}
	return st, nil
}
