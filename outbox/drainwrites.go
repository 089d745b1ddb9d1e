package outbox

import (
	"context"
	"database/sql"
	"errors"

	"github.com/sparkfamily/spark/engine/client"
)

// The drain delivers writes one at a time, in the order Dad made them,
// beside the photos: a write never waits behind a photo's upload, except a
// write to a moment whose own create (a photo's first step, or a note) is
// still in the outbox, and a write of one moment or phrase never overtakes
// an earlier one still unsent. Failures are classified as for photos
// (Classify): passing trouble waits with back-off, a refusal parks the
// write for Dad to retry or discard.

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
		if !o.deliver(ctx, c, target, w) {
			return tried
		}
	}
	return tried
}

// nextWrite is the first write due, in the order Dad made them, that waits
// for nothing: no earlier unsent write of its moment or phrase, no photo
// of its moment still to be created, and, for a quick recall (made of the
// phrases kept), no earlier phrase kept or removed that still waits to be
// sent. nil when none.
func (o *Outbox) nextWrite(ctx context.Context) (*row, error) {
	r, err := scanRow(o.db.QueryRowContext(ctx, `SELECT `+rowColumns+` FROM queue w
		WHERE kind != 'photo' AND state = 'pending' AND next_try <= ?
		AND NOT EXISTS (SELECT 1 FROM queue p WHERE p.kind != 'photo' AND p.seq < w.seq AND p.state IN ('pending', 'parked')
			AND ((w.moment_id != '' AND p.moment_id = w.moment_id) OR (w.phrase_id != '' AND p.phrase_id = w.phrase_id)))
		AND NOT EXISTS (SELECT 1 FROM queue e WHERE e.kind = 'photo' AND w.moment_id != '' AND e.moment_id = w.moment_id
			AND e.state != 'done' AND e.steps = 0)
		AND NOT (w.kind IN (`+kindsWhere(func(k kindSpec) bool { return k.afterPhrases })+`)
			AND EXISTS (SELECT 1 FROM queue p WHERE p.seq < w.seq AND p.state = 'pending'
			AND p.kind IN (`+kindsWhere(func(k kindSpec) bool { return k.phrase })+`)))
		ORDER BY seq LIMIT 1`, o.opts.Now().UnixMilli()))
	if err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, nil
		}
		return nil, err
	}
	return r, nil
}

// clearTimers makes every waiting entry due at once (Kick).
func (o *Outbox) clearTimers(ctx context.Context) {
	if _, err := o.db.ExecContext(ctx, "UPDATE queue SET next_try = 0 WHERE state = 'pending' AND next_try > 0"); err != nil {
		o.logOnce("outbox: cannot clear back-off timers", err)
	}
}

// nextDue is when the next entry waiting after trouble falls due (unix
// milliseconds), 0 when none.
func (o *Outbox) nextDue(ctx context.Context, now int64) (int64, error) {
	var next int64
	err := o.db.QueryRowContext(ctx, `SELECT coalesce(min(next_try), 0) FROM queue WHERE state = 'pending' AND next_try > ?`, now).Scan(&next)
	return next, err
}
