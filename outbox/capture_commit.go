package outbox

import (
	"context"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// maxBatch bounds how many staged captures one commit places and records.
const maxBatch = 32

// staged is file i of a Capture call, its files staged and synced.
type staged struct {
	i int
	c *capturing
}

// committer places and records the captures the workers stage, in
// batches: each batch is renamed into files/, files/ is synced once and
// the entries are committed in one transaction; only then is each capture
// reported. A batch is whatever the workers finished while the previous
// one was committed, so a lone capture waits for no one.
type committer struct {
	o     *Outbox
	ctx   context.Context
	force bool
	rep   *reporter
	in    chan staged
	done  chan struct{}
}

func (o *Outbox) startCommitter(ctx context.Context, force bool, rep *reporter) *committer {
	cm := &committer{o: o, ctx: ctx, force: force, rep: rep,
		in: make(chan staged, o.opts.Workers), done: make(chan struct{})}
	go cm.run()
	return cm
}

// add hands a staged capture to the committer, which reports it.
func (cm *committer) add(i int, c *capturing) { cm.in <- staged{i, c} }

// finish waits until every capture added is committed and reported; no
// add may follow.
func (cm *committer) finish() {
	close(cm.in)
	<-cm.done
}

func (cm *committer) run() {
	defer close(cm.done)
	for s := range cm.in {
		cm.commit(cm.gather(s))
	}
}

// gather returns first and the staged captures already waiting behind
// it, up to maxBatch.
func (cm *committer) gather(first staged) []staged {
	batch := []staged{first}
	for len(batch) < maxBatch {
		select {
		case s, ok := <-cm.in:
			if !ok {
				return batch
			}
			batch = append(batch, s)
		default:
			return batch
		}
	}
	return batch
}

// commit moves a batch into files/, syncs files/ and records the entries,
// then reports each capture. When the transaction fails, each entry is
// tried again on its own, so that one bad entry cannot sink the others
// and each result says what happened to it.
func (cm *committer) commit(batch []staged) {
	placed := cm.place(batch)
	if len(placed) == 0 {
		return
	}
	if err := syncDir(filepath.Join(cm.o.dir, "files")); err != nil {
		for _, s := range placed {
			cm.done1(s, "", s.c.fail("", err))
		}
		return
	}
	es := make([]*Entry, len(placed))
	for k, s := range placed {
		es[k] = s.c.e
	}
	dups, err := cm.o.insertEntries(cm.ctx, es, cm.force)
	if err != nil && len(placed) > 1 {
		for _, s := range placed {
			dups, err := cm.o.insertEntries(cm.ctx, []*Entry{s.c.e}, cm.force)
			cm.done1(s, dups[0], s.c.fail("record it in the outbox", err))
		}
		return
	}
	for k, s := range placed {
		cm.done1(s, dups[k], s.c.fail("record it in the outbox", err))
	}
}

// place waits until each capture's staged files are synced, then renames
// its staging folder to files/<id>; a capture whose sync or rename failed
// is reported, the others are returned.
func (cm *committer) place(batch []staged) []staged {
	placed := batch[:0]
	for _, s := range batch {
		if err := <-s.c.synced; err != nil {
			cm.done1(s, "", err)
			continue
		}
		if err := os.Rename(s.c.stage, s.c.final); err != nil {
			cm.done1(s, "", s.c.fail("place the files in the outbox", err))
			continue
		}
		s.c.placed = true
		placed = append(placed, s)
	}
	return placed
}

// done1 reports what became of a capture the committer took: recorded
// (announced, and the drain woken), a duplicate or an error; the files of
// one not recorded are removed.
func (cm *committer) done1(s staged, dup string, err error) {
	res := CaptureResult{Path: s.c.src}
	switch {
	case err != nil:
		res.Err = err
	case dup != "":
		res.Duplicate, res.DuplicateOf = true, dup
	default:
		s.c.committed = true
		res.Entry = s.c.e
		cm.o.events.publish(Event{Kind: EventAdded, EntryID: res.Entry.ID, At: res.Entry.CapturedAt, Entry: res.Entry})
		// Wake the drain, but leave the back-off of waiting entries alone: a
		// big import while the engine is down must not hammer it.
		cm.o.wake()
	}
	s.c.undo()
	cm.rep.report(s.i, res)
}

type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// duplicateOf returns the id of an entry (in the outbox or delivered) with
// the same original, or "".
func (o *Outbox) duplicateOf(ctx context.Context, q querier, sum []byte) (string, error) {
	h := hex.EncodeToString(sum)
	var id string
	err := q.QueryRowContext(ctx, `SELECT id FROM queue WHERE kind = 'photo' AND sha256 = ?1
		UNION ALL SELECT entry_id FROM delivered WHERE sha256 = ?1 LIMIT 1`, h).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("look for an earlier import: %w", err)
	}
	return id, nil
}

// insertEntries commits captured entries in one transaction. Unless
// force, it checks again for a duplicate of each inside the transaction,
// since two files with the same bytes may be captured at once (or in one
// batch): dups[k] is then the earlier entry's id, and es[k] is not
// inserted. On error nothing is inserted.
func (o *Outbox) insertEntries(ctx context.Context, es []*Entry, force bool) (dups []string, err error) {
	dups = make([]string, len(es))
	tx, err := o.db.BeginTx(ctx, nil)
	if err != nil {
		return dups, err
	}
	defer tx.Rollback()
	for k, e := range es {
		if !force {
			sum, _ := hex.DecodeString(e.SHA256)
			if dups[k], err = o.duplicateOf(ctx, tx, sum); err != nil {
				return dups, err
			}
			if dups[k] != "" {
				continue
			}
		}
		if err := insertEntry(ctx, tx, e); err != nil {
			return dups, err
		}
	}
	return dups, tx.Commit()
}

// insertEntry inserts e's row in tx.
func insertEntry(ctx context.Context, tx *sql.Tx, e *Entry) error {
	var takenAt any
	if e.TakenAt != nil {
		takenAt = formatTime(*e.TakenAt)
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO queue (id, kind, moment_id, copy_id, original_id, turn_request_id,
		source, name, format, content_type, size, sha256, copy_size, copy_sha256, copy_width, copy_height,
		taken_at, made_at) VALUES (?,'photo',?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
		e.ID, e.MomentID, e.CopyID, e.OriginalID, e.TurnRequestID, e.Source, e.Name, e.Format, e.ContentType,
		e.Size, e.SHA256, e.CopySize, e.CopySHA256, e.CopyWidth, e.CopyHeight, takenAt, formatTime(e.CapturedAt))
	return err
}
