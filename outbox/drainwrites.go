package outbox

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/sparkfamily/spark/api"
	"github.com/sparkfamily/spark/client"
	"github.com/sparkfamily/spark/retry"
)

// The drain delivers writes one at a time, in the order Dad made them,
// beside the photos: a write never waits behind a photo's upload, except a
// write to a moment whose own create (a photo's first step, or a note) is
// still in the outbox, and a write of one moment or phrase never overtakes
// an earlier one still unsent. Failures are classified as for photos
// (Classify): passing trouble waits with back-off, a refusal parks the
// write for Dad to retry or discard.

// startWriter starts the delivery of writes when none runs. One that runs
// is told to look again before it stops (a write may have come in after
// it looked).
func (o *Outbox) startWriter(ctx context.Context, c *client.Client, target Target, wg *sync.WaitGroup, finished chan struct{}) {
	d := &o.drain
	d.mu.Lock()
	defer d.mu.Unlock()
	if c == nil || d.writerOff > 0 {
		return
	}
	if d.writer != nil {
		d.writerAgain = true
		return
	}
	fctx, cancel := context.WithCancel(ctx)
	f := &flight{cancel: cancel, done: make(chan struct{})}
	d.writer = f
	wg.Add(1)
	go func() {
		defer wg.Done()
		tried := o.deliverWrites(fctx, c, target)
		cancel()
		d.mu.Lock()
		again := d.writerAgain
		d.writer, d.writerAgain = nil, false
		d.mu.Unlock()
		close(f.done)
		// A writer that found nothing to do says nothing, or the drain
		// and it would wake each other for ever.
		if tried || again {
			select {
			case finished <- struct{}{}:
			default:
			}
		}
	}()
}

// stopWriter keeps the drain from delivering writes and waits for a
// delivery in progress to stop; releaseWriter undoes it.
func (d *drainState) stopWriter() {
	d.mu.Lock()
	d.writerOff++
	f := d.writer
	d.mu.Unlock()
	if f != nil {
		f.cancel()
		<-f.done
	}
}

func (d *drainState) releaseWriter() {
	d.mu.Lock()
	d.writerOff--
	d.mu.Unlock()
}

// deliverWrites sends due writes in order until none is due or one fails;
// it reports whether it tried any.
func (o *Outbox) deliverWrites(ctx context.Context, c *client.Client, target Target) bool {
	tried := false
	for ctx.Err() == nil {
		w, err := o.nextWrite(ctx)
		if err != nil {
			if ctx.Err() == nil {
				o.logOnce("outbox: cannot read due writes", err)
			}
			return tried
		}
		if w == nil {
			return tried
		}
		tried = true
		if !o.deliverWrite(ctx, c, target, w) {
			return tried
		}
	}
	return tried
}

// nextWrite is the first write due, in the order Dad made them, that waits
// for nothing: no earlier unsent write of its moment or phrase, and no
// photo of its moment still to be created. nil when none.
func (o *Outbox) nextWrite(ctx context.Context) (*Write, error) {
	w, err := scanWrite(o.db.QueryRowContext(ctx, `SELECT `+writeColumns+` FROM writes w
		WHERE state = 'pending' AND next_try <= ?
		AND NOT EXISTS (SELECT 1 FROM writes p WHERE p.seq < w.seq AND p.state IN ('pending', 'parked')
			AND ((w.moment_id != '' AND p.moment_id = w.moment_id) OR (w.phrase_id != '' AND p.phrase_id = w.phrase_id)))
		AND NOT EXISTS (SELECT 1 FROM entries e WHERE w.moment_id != '' AND e.moment_id = w.moment_id
			AND e.state != 'done' AND e.steps = 0)
		ORDER BY seq LIMIT 1`, o.opts.Now().UnixMilli()))
	if err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, nil
		}
		return nil, err
	}
	return w, nil
}

// deliverWrite sends a write's remaining steps, recording each; it
// reports whether the write was sent.
func (o *Outbox) deliverWrite(ctx context.Context, c *client.Client, target Target, w *Write) bool {
	record := context.WithoutCancel(ctx)
	if w.StepsDone > 0 && w.Target != target.URL {
		// Another engine had the first step; this one starts over (the
		// ids make it harmless if it has it too).
		if _, err := o.db.ExecContext(record, "UPDATE writes SET steps = 0, target = '' WHERE id = ? AND steps = ?", w.ID, w.StepsDone); err != nil {
			o.logOnce("outbox: cannot reset write "+w.ID, err)
			return false
		}
		w.StepsDone = 0
	}
	for w.StepsDone < w.stepCount() {
		res, err := o.sendWrite(ctx, c, w)
		if err != nil {
			if ctx.Err() == nil {
				o.writeFailed(record, w, err)
			}
			return false
		}
		if !o.writeStepDone(record, w, target, res) {
			return false
		}
	}
	o.events.publish(Event{Kind: EventDone, EntryID: w.ID, At: o.opts.Now(), Write: w})
	return true
}

// sendWrite performs a write's next step at the engine and returns the
// engine's answer.
func (o *Outbox) sendWrite(ctx context.Context, c *client.Client, w *Write) (any, error) {
	switch w.Kind {
	case WriteNote:
		if w.StepsDone == 0 {
			return o.createNote(ctx, c, w)
		}
		t, _, err := c.StartTurn(ctx, w.MomentID, api.StartTurnRequest{ClientRequestID: w.TurnRequestID, Mode: api.ModePractical})
		return t, err
	case WriteCaption:
		return c.EditMoment(ctx, w.MomentID, api.EditMomentRequest{Caption: &w.Text})
	case WriteTakenAt:
		t, err := time.Parse(time.RFC3339Nano, w.Text)
		if err != nil {
			return nil, Permanent("bad_entry", fmt.Errorf("the outbox holds a bad date %q; discard this change and make it again", w.Text))
		}
		return c.EditMoment(ctx, w.MomentID, api.EditMomentRequest{TakenAt: &t})
	case WriteDelete:
		return c.DeleteMoment(ctx, w.MomentID)
	case WriteKeep:
		p, _, err := c.KeepPhrase(ctx, api.KeepPhraseRequest{Text: w.Text, MomentID: w.MomentID})
		return p, err
	case WriteUnkeep:
		return c.RemovePhrase(ctx, w.PhraseID)
	case WriteCareful:
		turns, _, err := c.StartJob(ctx, w.MomentID, w.ID)
		return turns, err
	case WriteAgain:
		t, _, err := c.StartTurn(ctx, w.MomentID, api.StartTurnRequest{ClientRequestID: w.TurnRequestID, Mode: api.ModePractical})
		return t, err
	case WriteRecall:
		m, t, _, err := c.StartRecall(ctx, w.ID)
		return RecallResult{Moment: m, Turn: t}, err
	}
	return nil, Permanent("bad_entry", fmt.Errorf("unknown kind of write %q", w.Kind))
}

func (o *Outbox) createNote(ctx context.Context, c *client.Client, w *Write) (any, error) {
	m, _, err := c.CreateMoment(ctx, api.CreateMomentRequest{ID: w.MomentID, ClientRequestID: w.RequestID, Kind: api.KindNote, Caption: w.Text})
	if err != nil {
		return nil, err
	}
	if m != nil && m.ID != w.MomentID {
		return nil, Permanent("moment_mismatch", fmt.Errorf("the engine has request id %s as moment %s, not %s; discard this note and write it again", w.RequestID, m.ID, w.MomentID))
	}
	return m, nil
}

// writeStepDone records a step the engine acknowledged, and the write as
// sent after its last. It reports false when the write changed meanwhile
// (a newer caption merged into it, a discard): it is then sent again, or
// not at all.
func (o *Outbox) writeStepDone(ctx context.Context, w *Write, target Target, res any) bool {
	b, err := json.Marshal(res)
	if err != nil {
		b = nil
	}
	steps := w.StepsDone + 1
	state, sentAt := Pending, any(nil)
	if steps == w.stepCount() {
		state, sentAt = Done, formatTime(o.opts.Now())
	}
	r, err := o.db.ExecContext(ctx, `UPDATE writes SET steps = ?, target = ?, state = ?, sent_at = ?, result = ?,
		attempts = 0, next_try = 0, last_code = '', last_error = '' WHERE id = ? AND steps = ? AND rev = ? AND state = 'pending'`,
		steps, target.URL, state, sentAt, string(b), w.ID, w.StepsDone, w.rev)
	if err != nil {
		// Done at the engine; repeating it is harmless.
		o.writeFailed(ctx, w, fmt.Errorf("record write %s: %w", w.ID, err))
		return false
	}
	if n, _ := r.RowsAffected(); n == 0 {
		return false
	}
	w.StepsDone, w.Target, w.State, w.Result = steps, target.URL, state, b
	return true
}

// writeFailed records a failed step: the write waits or is parked.
func (o *Outbox) writeFailed(ctx context.Context, w *Write, err error) {
	v := Classify(err)
	now := o.opts.Now()
	if v.Park {
		if _, dbErr := o.db.ExecContext(ctx, `UPDATE writes SET state = 'parked', attempts = attempts + 1, next_try = 0,
			last_code = ?, last_error = ? WHERE id = ? AND state = 'pending'`, v.Code, v.Message, w.ID); dbErr != nil {
			o.logOnce("outbox: cannot park write "+w.ID, dbErr)
			return
		}
		o.log.Warn("outbox: write parked", "write", w.ID, "kind", w.Kind, "code", v.Code, "message", v.Message)
		w.State, w.LastCode, w.LastError = Parked, v.Code, v.Message
		o.events.publish(Event{Kind: EventParked, EntryID: w.ID, Code: v.Code, Message: v.Message, At: now, Write: w})
		return
	}
	b := retry.Backoff{Base: o.opts.BackoffBase, Cap: o.opts.BackoffCap, Rand: o.opts.Rand}
	next := now.Add(b.Wait(w.Attempts+1, v.RetryAfter))
	if _, dbErr := o.db.ExecContext(ctx, `UPDATE writes SET attempts = attempts + 1, next_try = ?, last_code = ?, last_error = ?
		WHERE id = ? AND state = 'pending'`, max(next.UnixMilli(), 1), v.Code, v.Message, w.ID); dbErr != nil {
		o.logOnce("outbox: cannot record trouble for write "+w.ID, dbErr)
	}
	o.logOnce("outbox: write waiting after trouble", err)
	w.LastCode, w.LastError, w.NextTry = v.Code, v.Message, &next
	o.events.publish(Event{Kind: EventWaiting, EntryID: w.ID, Code: v.Code, Reason: v.Message, Message: v.Message, NextTry: &next, At: now, Write: w})
}

// clearWriteTimers makes every waiting write due at once (Kick).
func (o *Outbox) clearWriteTimers(ctx context.Context) {
	if _, err := o.db.ExecContext(ctx, "UPDATE writes SET next_try = 0 WHERE state = 'pending' AND next_try > 0"); err != nil {
		o.logOnce("outbox: cannot clear back-off timers of writes", err)
	}
}

// nextDue is when the next entry or write waiting after trouble falls
// due (unix milliseconds), 0 when none.
func (o *Outbox) nextDue(ctx context.Context, now int64) (int64, error) {
	var next int64
	err := o.db.QueryRowContext(ctx, `SELECT coalesce(min(t), 0) FROM (
		SELECT min(next_try) AS t FROM entries WHERE state = 'pending' AND next_try > ?
		UNION ALL SELECT min(next_try) FROM writes WHERE state = 'pending' AND next_try > ?)`, now, now).Scan(&next)
	return next, err
}
