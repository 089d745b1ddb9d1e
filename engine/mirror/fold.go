package mirror

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/oplog"
)

// The fold's statements, prepared once on the fold's own connection and
// reused by every transaction. The transaction itself is run with BEGIN and
// COMMIT statements on that connection rather than database/sql's Tx, which
// starts a goroutine per transaction and hands the driver a cancelable
// context (modernc then starts a goroutine per statement to watch it).
const (
	sqlMomentInsert = `INSERT INTO moments (id, kind, caption, taken_at, created_at, updated_at, deleted_at, copy_id, original_id, request_id, seq, owner)
		VALUES (?, ?, ?, ?, ?, ?, NULL, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`
	sqlMomentEdit = `UPDATE moments SET
		caption = CASE WHEN ?1 THEN ?2 ELSE caption END,
		caption_at = CASE WHEN ?1 THEN ?7 ELSE caption_at END,
		caption_by = CASE WHEN ?1 THEN ?8 ELSE caption_by END,
		taken_at = CASE WHEN ?3 THEN ?4 ELSE taken_at END,
		deleted_at = NULL,
		updated_at = ?5 WHERE id = ?6`
	sqlMomentCaption  = `SELECT caption, caption_at, caption_by, deleted_at IS NOT NULL FROM moments WHERE id = ? AND purged_at IS NULL`
	sqlAltInsert      = `INSERT INTO alternatives (moment_id, id, caption, written_at, written_by, seq) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`
	sqlAltCaption     = `DELETE FROM alternatives WHERE moment_id = ? AND caption = ?`
	sqlAltDismiss     = `DELETE FROM alternatives WHERE moment_id = ? AND id = ?`
	sqlWordsInsert    = `INSERT INTO words (moment_id, text, lang, seq) SELECT ?1, ?2, ?3, ?4 WHERE EXISTS (SELECT 1 FROM moments WHERE id = ?1 AND purged_at IS NULL) ON CONFLICT DO NOTHING`
	sqlMomentDelete   = `UPDATE moments SET deleted_at = ?1, updated_at = ?1 WHERE id = ?2 AND deleted_at IS NULL`
	sqlMomentRestore  = `UPDATE moments SET deleted_at = NULL, updated_at = ?1 WHERE id = ?2 AND deleted_at IS NOT NULL AND purged_at IS NULL`
	sqlMomentPurge    = `UPDATE moments SET purged_at = ?1, updated_at = ?1, caption = '', caption_at = NULL, caption_by = NULL, copy_id = NULL, original_id = NULL WHERE id = ?2 AND deleted_at IS NOT NULL AND purged_at IS NULL`
	sqlPurgeGone      = `INSERT INTO media_gone (sha256, seq) SELECT DISTINCT sha256, ?2 FROM media WHERE moment_id = ?1 ON CONFLICT DO NOTHING`
	sqlPurgeMedia     = `DELETE FROM media WHERE moment_id = ?`
	sqlPurgeShared    = `DELETE FROM media_gone WHERE seq = ?1 AND EXISTS (SELECT 1 FROM media WHERE media.sha256 = media_gone.sha256)`
	sqlPurgeWords     = `DELETE FROM words WHERE moment_id = ?`
	sqlPurgeWordsDoc  = `DELETE FROM search_docs WHERE key = 'w:' || ?`
	sqlPurgeAlts      = `DELETE FROM alternatives WHERE moment_id = ?`
	sqlPurgeTurns     = `UPDATE turns SET text = '', error = '' WHERE moment_id = ?`
	sqlMediaBack      = `DELETE FROM media_gone WHERE sha256 = ?`
	sqlMediaInsert    = `INSERT INTO media (id, moment_id, role, sha256, size, content_type, created_at, seq) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`
	sqlMomentCopy     = `UPDATE moments SET copy_id = ?1 WHERE id = ?2 AND copy_id IS NULL`
	sqlMomentOriginal = `UPDATE moments SET original_id = ?1 WHERE id = ?2 AND original_id IS NULL`
	sqlTurnInsert     = `INSERT INTO turns (id, moment_id, mode, seat, status, text, error, request_id, job_id, job_index, recall_id, started_at, finished_at, seq)
		VALUES (?, ?, ?, ?, 'queued', '', '', ?, ?, ?, ?, ?, NULL, ?) ON CONFLICT DO NOTHING`
	sqlTurnFinish = `UPDATE turns SET status = ?1, seat = CASE WHEN ?2 <> '' THEN ?2 ELSE seat END, text = ?3, error = ?4, finished_at = ?5, error_code = ?7
		WHERE id = ?6 AND finished_at IS NULL`
	sqlJobInsert      = `INSERT INTO jobs (id, moment_id, created_at, seq) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING`
	sqlRecallInsert   = `INSERT INTO recalls (id, moment_id, turn_id, phrases, created_at, seq) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`
	sqlPhraseRecalled = `UPDATE phrases SET last_recalled_at = ?1 WHERE id = ?2`
	sqlPhraseKeep     = `INSERT INTO phrases (id, text, moment_id, kept_at, last_recalled_at, seq, owner) VALUES (?, ?, ?, ?, NULL, ?, ?) ON CONFLICT DO NOTHING`
	sqlPhraseUnkeep   = `DELETE FROM phrases WHERE id = ?`
	sqlRequestInsert  = `INSERT INTO requests (id, kind, moment_id, turn_id, seq, owner) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`
	sqlLastSeq        = `UPDATE meta SET value = ? WHERE key = 'last_seq'`
	sqlBegin          = `BEGIN IMMEDIATE`
	sqlCommit         = `COMMIT`
	sqlRollback       = `ROLLBACK`
	sqlCheckpoint     = `PRAGMA wal_checkpoint(TRUNCATE)`
)

var foldSQL = []string{
	sqlMomentInsert, sqlMomentEdit, sqlMomentCaption, sqlAltInsert, sqlAltCaption, sqlAltDismiss, sqlWordsInsert, sqlMomentDelete, sqlMomentRestore,
	sqlMomentPurge, sqlPurgeGone, sqlPurgeMedia, sqlPurgeShared, sqlPurgeWords, sqlPurgeWordsDoc, sqlPurgeAlts, sqlPurgeTurns, sqlMediaBack, sqlMediaInsert, sqlMomentCopy, sqlMomentOriginal,
	sqlTurnInsert, sqlTurnFinish, sqlJobInsert, sqlRecallInsert, sqlPhraseRecalled, sqlPhraseKeep,
	sqlPhraseUnkeep, sqlRequestInsert, sqlLastSeq, sqlBegin, sqlCommit, sqlRollback, sqlCheckpoint,
}

type folder struct {
	once sync.Once
	err  error
	// conn is the write pool's one connection, held by the fold from its
	// first use until Close; every write goes through it.
	conn  *sql.Conn
	stmts map[string]*sql.Stmt
	// run is the runs of creates' buffers, kept from one fold to the next
	// (folds are one at a time, under applyMu).
	run createRun
}

// prepare takes the fold's connection and prepares its statements. The
// statements run with a context that is never canceled (a fold is never
// left half done by a canceled caller: Stage checks ctx once, up front),
// so the driver starts no goroutine to watch it.
func (m *DB) prepare(ctx context.Context) error {
	m.fold.once.Do(func() {
		ctx := context.WithoutCancel(ctx)
		conn, err := m.w.Conn(ctx)
		if err != nil {
			m.fold.err = fmt.Errorf("mirror %s: prepare the fold: %w", m.path, err)
			return
		}
		m.fold.conn = conn
		m.fold.stmts = make(map[string]*sql.Stmt, len(foldSQL))
		for _, q := range foldSQL {
			st, err := conn.PrepareContext(ctx, q)
			if err != nil {
				m.fold.err = fmt.Errorf("mirror %s: prepare the fold: %w", m.path, err)
				return
			}
			m.fold.stmts[q] = st
		}
	})
	return m.fold.err
}

// tx is one fold's transaction on the fold's connection.
type tx struct {
	ctx context.Context
	m   *DB
}

func (t *tx) exec(q string, args ...any) (sql.Result, error) {
	return t.m.fold.stmts[q].ExecContext(t.ctx, args...)
}

func (t *tx) queryRow(q string, args ...any) *sql.Row {
	return t.m.fold.stmts[q].QueryRowContext(t.ctx, args...)
}

// foldEdit folds a moment.edit. An edit brings a deleted moment back (it
// is never turned down, so nothing typed is lost). A caption with a base
// that is no longer the moment's caption keeps both: the two merged word
// by word when they changed different words (merge3), else the new one
// becomes the caption and the one it replaces an alternative, with when
// and where it was written. An alternative that equals the caption is
// dropped, as are those the edit dismisses.
func (t *tx) foldEdit(r *oplog.Record, d *MomentEdit, at, seq int64) error {
	if err := t.request(r, r.RequestID, RequestEdit, d.ID, ""); err != nil {
		return err
	}
	var cur string
	var curAt sql.NullInt64
	var curBy sql.NullString
	var deleted bool
	switch err := t.queryRow(sqlMomentCaption, d.ID).Scan(&cur, &curAt, &curBy, &deleted); {
	case errors.Is(err, sql.ErrNoRows):
		// An edit of a moment the log never made, or purged, changes
		// nothing.
		return nil
	case err != nil:
		return err
	}
	if d.Caption == nil && d.TakenAt == nil && len(d.Dismiss) == 0 && !deleted {
		return nil // only its request id is remembered
	}
	caption := cur
	var capAt, capBy any
	if d.Caption != nil {
		caption = *d.Caption
		if d.BaseCaption != nil {
			w := at
			if d.WrittenAt != nil && nanos(*d.WrittenAt) < at {
				w = nanos(*d.WrittenAt)
			}
			by := d.WrittenBy
			if by == "" {
				by = r.Author
			}
			capAt, capBy = w, by
			if *d.BaseCaption != cur && caption != cur {
				if merged, ok := merge3(*d.BaseCaption, cur, caption); ok {
					caption = merged
				} else if strings.TrimSpace(cur) != "" {
					if _, err := t.exec(sqlAltInsert, d.ID, api.AlternativeID(cur), cur, curAt, curBy.String, seq); err != nil {
						return err
					}
				}
			}
		}
		if _, err := t.exec(sqlAltCaption, d.ID, caption); err != nil {
			return err
		}
	}
	for _, id := range d.Dismiss {
		if _, err := t.exec(sqlAltDismiss, d.ID, id); err != nil {
			return err
		}
	}
	_, err := t.exec(sqlMomentEdit, d.Caption != nil, caption, d.TakenAt != nil, nullTime(d.TakenAt), at, d.ID, capAt, capBy)
	return err
}

// Apply folds a batch of log records, in seq order, in one transaction that
// also stores the seq of the last one. Records at or below the mirror's last
// seq are skipped, so a batch applied twice changes nothing. A record whose
// seq does not follow the mirror's last one is refused: the mirror would miss
// ops.
func (m *DB) Apply(ctx context.Context, batch []oplog.Record) error {
	s, err := m.Stage(ctx, batch)
	if err != nil {
		return err
	}
	return s.Commit()
}

// Staged is a fold prepared by Stage: its transaction is open and holds the
// batch's rows, which no reader sees until Commit. Until Commit or Abort,
// every other Apply or Stage waits.
type Staged struct {
	m       *DB
	tx      *tx
	applied uint64
	done    bool
}

// Stage does Apply's work but leaves the transaction open, so that the
// caller can commit it once the batch is durable in the log (the log folds
// while it fsyncs). Exactly one of Commit and Abort must follow a nil error;
// on an error nothing is left open.
func (m *DB) Stage(ctx context.Context, batch []oplog.Record) (*Staged, error) {
	m.applyMu.Lock()
	s, err := m.stage(ctx, batch)
	if err != nil {
		m.applyMu.Unlock()
		m.folded(false)
		return nil, err
	}
	return s, nil
}

func (m *DB) stage(ctx context.Context, batch []oplog.Record) (*Staged, error) {
	// Only Apply writes the mirror, one call at a time, so the last seq
	// it stored is known without reading it back.
	last := m.lastSeq.Load()
	s := &Staged{m: m, applied: last}
	if len(batch) == 0 || batch[len(batch)-1].Seq <= last {
		return s, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := m.prepare(ctx); err != nil {
		return nil, err
	}
	t := &tx{ctx: context.WithoutCancel(ctx), m: m}
	if _, err := t.exec(sqlBegin); err != nil {
		return nil, fmt.Errorf("mirror %s: begin fold: %w", m.path, err)
	}
	ok := false
	defer func() {
		if !ok {
			t.rollback()
		}
	}()
	applied := last
	run := &m.fold.run
	defer run.reset()
	for i := 0; i < len(batch); {
		r := &batch[i]
		if r.Seq <= applied {
			i++
			continue
		}
		if r.Seq != applied+1 {
			return nil, fmt.Errorf("mirror %s: op seq %d does not follow the last one folded (%d); rebuild the mirror with `spark-engine rebuild`", m.path, r.Seq, applied)
		}
		if n := run.gather(batch[i:]); n > 1 {
			if err := t.foldCreates(run); err != nil {
				return nil, fmt.Errorf("mirror %s: fold ops %d-%d (%s): %w", m.path, r.Seq, batch[i+n-1].Seq, r.Op, err)
			}
			applied = batch[i+n-1].Seq
			i += n
			continue
		}
		if err := t.fold(r); err != nil {
			return nil, fmt.Errorf("mirror %s: fold op %d (%s): %w", m.path, r.Seq, r.Op, err)
		}
		applied = r.Seq
		i++
	}
	if _, err := t.exec(sqlLastSeq, int64(applied)); err != nil {
		return nil, fmt.Errorf("mirror %s: store last seq: %w", m.path, err)
	}
	ok = true
	s.tx, s.applied = t, applied
	return s, nil
}

// Commit makes the staged fold visible and stores its last seq.
func (s *Staged) Commit() error {
	if s.done {
		return fmt.Errorf("mirror %s: a staged fold was committed or aborted twice", s.m.path)
	}
	s.done = true
	defer s.m.applyMu.Unlock()
	if s.tx == nil {
		return nil
	}
	if _, err := s.tx.exec(sqlCommit); err != nil {
		// A failed COMMIT may leave the transaction open; end it so that
		// the connection is clean for the next fold.
		s.tx.rollback()
		s.m.folded(false)
		return fmt.Errorf("mirror %s: commit fold: %w", s.m.path, err)
	}
	s.m.lastSeq.Store(s.applied)
	s.m.folded(true)
	return nil
}

// Abort drops the staged fold: nothing of it was ever visible.
func (s *Staged) Abort() {
	if s.done {
		return
	}
	s.done = true
	defer s.m.applyMu.Unlock()
	if s.tx != nil {
		s.tx.rollback()
	}
}

// rollback ends the transaction; its error is moot (the fold has already
// failed), and SQLite may have rolled back already.
func (t *tx) rollback() {
	t.exec(sqlRollback)
}

func nanos(t time.Time) int64 { return t.UnixNano() }

func nullTime(t *time.Time) any {
	if t == nil {
		return nil
	}
	return t.Format(time.RFC3339Nano)
}

func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func (t *tx) fold(r *oplog.Record) error {
	at := nanos(r.At)
	seq := int64(r.Seq)
	switch r.Op {
	case api.OpMomentCreate:
		var d MomentCreate
		if err := json.Unmarshal(r.Data, &d); err != nil {
			return err
		}
		// The id index learns of the row before the transaction commits, so
		// that no reader can find the row in the table but not in the index.
		t.m.ids.add(momentIDs, d.ID)
		if _, err := t.exec(sqlMomentInsert, d.ID, d.Kind, d.Caption, nullTime(d.TakenAt), d.addedAt(at), at,
			nullString(d.CopyID), nullString(d.OriginalID), nullString(r.RequestID), seq, r.MemberOf()); err != nil {
			return err
		}
		kind, turn := RequestMoment, ""
		if d.Recall != nil {
			kind, turn = RequestRecall, d.Recall.TurnID
			phrases, err := json.Marshal(d.Recall.Phrases)
			if err != nil {
				return err
			}
			if _, err := t.exec(sqlRecallInsert, d.Recall.ID, d.ID, d.Recall.TurnID, string(phrases), at, seq); err != nil {
				return err
			}
			for _, p := range d.Recall.Phrases {
				if _, err := t.exec(sqlPhraseRecalled, at, p.ID); err != nil {
					return err
				}
			}
		}
		return t.request(r, r.RequestID, kind, d.ID, turn)
	case api.OpMomentEdit:
		var d MomentEdit
		if err := json.Unmarshal(r.Data, &d); err != nil {
			return err
		}
		return t.foldEdit(r, &d, at, seq)
	case api.OpMomentDelete:
		var d MomentDelete
		if err := json.Unmarshal(r.Data, &d); err != nil {
			return err
		}
		_, err := t.exec(sqlMomentDelete, at, d.ID)
		return err
	case api.OpMomentWords:
		var d MomentWords
		if err := json.Unmarshal(r.Data, &d); err != nil {
			return err
		}
		_, err := t.exec(sqlWordsInsert, d.ID, d.Text, d.Lang, seq)
		return err
	case api.OpMomentRestore:
		var d MomentRestore
		if err := json.Unmarshal(r.Data, &d); err != nil {
			return err
		}
		_, err := t.exec(sqlMomentRestore, at, d.ID)
		return err
	case api.OpMomentPurge:
		var d MomentPurge
		if err := json.Unmarshal(r.Data, &d); err != nil {
			return err
		}
		return t.foldPurge(d.ID, at, seq)
	case api.OpMediaPut:
		var d MediaPut
		if err := json.Unmarshal(r.Data, &d); err != nil {
			return err
		}
		if _, err := t.exec(sqlMediaInsert, d.ID, d.MomentID, d.Role, d.SHA256, d.Size, d.ContentType, at, seq); err != nil {
			return err
		}
		// The same bytes, stored again after a purge named them gone.
		if _, err := t.exec(sqlMediaBack, d.SHA256); err != nil {
			return err
		}
		q := sqlMomentCopy
		if d.Role == api.RoleOriginal {
			q = sqlMomentOriginal
		}
		_, err := t.exec(q, d.ID, d.MomentID)
		return err
	case api.OpTurnStart:
		var d TurnStart
		if err := json.Unmarshal(r.Data, &d); err != nil {
			return err
		}
		// A job's turn and a recall's turn have request ids derived from
		// the job or recall id. Logs written before version 2 carry the job
		// or recall id itself on these lines; the derived id comes from the
		// data, so both fold alike.
		reqID := r.RequestID
		switch {
		case d.Job != "":
			reqID = JobTurnRequestID(d.Job, d.JobIndex)
		case d.Recall != "":
			reqID = RecallTurnRequestID(d.Recall)
		}
		if _, err := t.exec(sqlTurnInsert, d.ID, d.MomentID, d.Mode, d.Seat, reqID, d.Job, d.JobIndex, d.Recall, at, seq); err != nil {
			return err
		}
		switch {
		case d.Job != "":
			if _, err := t.exec(sqlJobInsert, d.Job, d.MomentID, at, seq); err != nil {
				return err
			}
			// The job id answers for the job (its first turn wins).
			if err := t.request(r, d.Job, RequestJob, d.MomentID, d.ID); err != nil {
				return err
			}
			return t.request(r, reqID, RequestJobTurn, d.MomentID, d.ID)
		case d.Recall != "":
			// The recall id was remembered by the recall's moment.create.
			if err := t.request(r, d.Recall, RequestRecall, d.MomentID, d.ID); err != nil {
				return err
			}
			return t.request(r, reqID, RequestRecallTurn, d.MomentID, d.ID)
		}
		return t.request(r, reqID, RequestTurn, d.MomentID, d.ID)
	case api.OpTurnFinish:
		var d TurnFinish
		if err := json.Unmarshal(r.Data, &d); err != nil {
			return err
		}
		_, err := t.exec(sqlTurnFinish, d.Status, d.Seat, d.Text, d.Error, at, d.ID, FailCode(d.Status, d.ErrorCode, d.Error))
		return err
	case api.OpPhraseKeep:
		var d PhraseKeep
		if err := json.Unmarshal(r.Data, &d); err != nil {
			return err
		}
		_, err := t.exec(sqlPhraseKeep, d.ID, d.Text, d.MomentID, at, seq, r.MemberOf())
		return err
	case api.OpPhraseUnkeep:
		var d PhraseUnkeep
		if err := json.Unmarshal(r.Data, &d); err != nil {
			return err
		}
		_, err := t.exec(sqlPhraseUnkeep, d.ID)
		return err
	default:
		return fmt.Errorf("unknown op %q; the log was written by a newer engine", r.Op)
	}
}

// foldPurge folds a moment.purge: a deleted moment, not purged before, is
// removed for good (purge.sql); on any other moment it does nothing, so
// that the fold stays a function of the log whatever came between the
// engine's choice and the op.
func (t *tx) foldPurge(id string, at, seq int64) error {
	res, err := t.exec(sqlMomentPurge, at, id)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return err
	}
	if _, err := t.exec(sqlPurgeGone, id, seq); err != nil {
		return err
	}
	if _, err := t.exec(sqlPurgeMedia, id); err != nil {
		return err
	}
	if _, err := t.exec(sqlPurgeShared, seq); err != nil {
		return err
	}
	for _, q := range []string{sqlPurgeWords, sqlPurgeWordsDoc, sqlPurgeAlts, sqlPurgeTurns} {
		if _, err := t.exec(q, id); err != nil {
			return err
		}
	}
	return nil
}

// request remembers what request id id produced, by op r (its seq and
// member); the first producer wins.
func (t *tx) request(r *oplog.Record, id, kind, momentID, turnID string) error {
	if id == "" {
		return nil
	}
	t.m.ids.add(requestIDs, id)
	_, err := t.exec(sqlRequestInsert, id, kind, momentID, turnID, int64(r.Seq), r.MemberOf())
	return err
}

// maxCreateRows is how many moments one INSERT of a run of creates holds
// (11 parameters each, far below SQLite's limit).
const maxCreateRows = 64

// createRun is a run of consecutive plain moment.create ops (no recall),
// which the fold inserts with one statement per maxCreateRows moments
// rather than one each: a statement that writes the search index (the
// captions' trigger) makes FTS5 flush what it gathered, so one statement
// per moment wrote one index segment per moment.
type createRun struct {
	recs []*oplog.Record
	data []MomentCreate
	args []any
	// shared holds, for each create, the arguments both of its rows take
	// (moment id, request id, seq, owner), made interfaces once.
	shared []any
}

// maxKeptRun bounds the buffers a createRun keeps between folds: those
// grown by a larger fold (a catch-up folds thousands of ops at once) are
// let go.
const maxKeptRun = 1024

// reset drops what the run refers to (the batch's records, their strings),
// keeping its buffers unless the run grew past maxKeptRun creates (recs,
// data and shared grow with the run; args holds one INSERT's at most).
func (c *createRun) reset() {
	if cap(c.recs) > maxKeptRun {
		*c = createRun{}
		return
	}
	clear(c.recs[:cap(c.recs)])
	clear(c.data[:cap(c.data)])
	clear(c.args[:cap(c.args)])
	clear(c.shared[:cap(c.shared)])
	c.recs, c.data, c.args, c.shared = c.recs[:0], c.data[:0], c.args[:0], c.shared[:0]
}

// gather takes the run of plain creates with consecutive seqs that begins
// batch, decoding each, and returns how many it took; fewer than two means
// the first record is folded alone (fold reports a record it cannot
// decode).
func (c *createRun) gather(batch []oplog.Record) int {
	c.recs, c.data = c.recs[:0], c.data[:0]
	for i := range batch {
		r := &batch[i]
		if r.Op != api.OpMomentCreate || (i > 0 && r.Seq != batch[i-1].Seq+1) {
			break
		}
		var d MomentCreate
		if err := json.Unmarshal(r.Data, &d); err != nil || d.Recall != nil {
			break
		}
		c.recs = append(c.recs, r)
		c.data = append(c.data, d)
	}
	return len(c.recs)
}

// foldCreates folds a gathered run: the moments (and, by trigger, their
// captions' search rows) in order, then the request ids in order; neither
// table's rows depend on the other's, so this makes exactly the rows that
// folding the ops one by one makes.
func (t *tx) foldCreates(c *createRun) error {
	// The id index learns of the rows before the transaction commits, as
	// in fold.
	t.m.ids.addRun(c)
	c.shared = c.shared[:0]
	for lo := 0; lo < len(c.recs); lo += maxCreateRows {
		hi := min(lo+maxCreateRows, len(c.recs))
		c.args = c.args[:0]
		for i := lo; i < hi; i++ {
			r, d := c.recs[i], &c.data[i]
			// Each value is made an interface once, for both tables.
			id, requestID, seq, at, owner := any(d.ID), nullString(r.RequestID), any(int64(r.Seq)), nanos(r.At), any(r.MemberOf())
			c.shared = append(c.shared, id, requestID, seq, owner)
			c.args = append(c.args, id, d.Kind, d.Caption, nullTime(d.TakenAt), d.addedAt(at), at,
				nullString(d.CopyID), nullString(d.OriginalID), requestID, seq, owner)
		}
		st, err := t.m.rowsStmt(t.ctx, momentRowsSQL[hi-lo])
		if err != nil {
			return err
		}
		if _, err := st.ExecContext(t.ctx, c.args...); err != nil {
			return err
		}
	}
	// The request ids, the same way (t.request's row for each that has
	// one; the first producer wins, within the run as across runs).
	for lo := 0; lo < len(c.recs); {
		c.args = c.args[:0]
		n := 0
		for ; lo < len(c.recs) && n < maxCreateRows; lo++ {
			if c.recs[lo].RequestID == "" {
				continue
			}
			id, requestID, seq, owner := c.shared[4*lo], c.shared[4*lo+1], c.shared[4*lo+2], c.shared[4*lo+3]
			c.args = append(c.args, requestID, RequestMoment, id, "", seq, owner)
			n++
		}
		if n == 0 {
			break
		}
		st, err := t.m.rowsStmt(t.ctx, requestRowsSQL[n])
		if err != nil {
			return err
		}
		if _, err := st.ExecContext(t.ctx, c.args...); err != nil {
			return err
		}
	}
	return nil
}

// rowsStmt returns the fold's statement q, one of momentRowsSQL or
// requestRowsSQL, prepared once on the fold's connection.
func (m *DB) rowsStmt(ctx context.Context, q string) (*sql.Stmt, error) {
	if st, ok := m.fold.stmts[q]; ok {
		return st, nil
	}
	st, err := m.fold.conn.PrepareContext(ctx, q)
	if err != nil {
		return nil, err
	}
	m.fold.stmts[q] = st
	return st, nil
}

// momentRowsSQL[n] inserts n moments, as sqlMomentInsert does one;
// requestRowsSQL[n] inserts n request ids, as sqlRequestInsert does one.
var (
	momentRowsSQL = rowsSQL("INSERT INTO moments (id, kind, caption, taken_at, created_at, updated_at, deleted_at, copy_id, original_id, request_id, seq, owner) VALUES ",
		"(?, ?, ?, ?, ?, ?, NULL, ?, ?, ?, ?, ?)")
	requestRowsSQL = rowsSQL("INSERT INTO requests (id, kind, moment_id, turn_id, seq, owner) VALUES ", "(?, ?, ?, ?, ?, ?)")
)

func rowsSQL(insert, row string) []string {
	qs := make([]string, maxCreateRows+1)
	for n := 1; n <= maxCreateRows; n++ {
		qs[n] = insert + row + strings.Repeat(", "+row, n-1) + " ON CONFLICT DO NOTHING"
	}
	return qs
}
