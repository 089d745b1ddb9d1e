package mirror

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/sparkfamily/spark/api"
	"github.com/sparkfamily/spark/engine/oplog"
)

// The fold's statements, prepared once on the write connection and reused
// by every transaction (database/sql keeps them on that one connection).
const (
	sqlMomentInsert = `INSERT INTO moments (id, kind, caption, taken_at, created_at, updated_at, deleted_at, copy_id, original_id, request_id, seq)
		VALUES (?, ?, ?, ?, ?, ?, NULL, ?, ?, ?, ?) ON CONFLICT DO NOTHING`
	sqlMomentEdit = `UPDATE moments SET
		caption = CASE WHEN ?1 THEN ?2 ELSE caption END,
		taken_at = CASE WHEN ?3 THEN ?4 ELSE taken_at END,
		updated_at = ?5 WHERE id = ?6`
	sqlMomentDelete   = `UPDATE moments SET deleted_at = ?1, updated_at = ?1 WHERE id = ?2 AND deleted_at IS NULL`
	sqlMediaInsert    = `INSERT INTO media (id, moment_id, role, sha256, size, content_type, created_at, seq) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`
	sqlMomentCopy     = `UPDATE moments SET copy_id = ?1 WHERE id = ?2 AND copy_id IS NULL`
	sqlMomentOriginal = `UPDATE moments SET original_id = ?1 WHERE id = ?2 AND original_id IS NULL`
	sqlTurnInsert     = `INSERT INTO turns (id, moment_id, mode, seat, status, text, error, request_id, job_id, job_index, recall_id, started_at, finished_at, seq)
		VALUES (?, ?, ?, ?, 'queued', '', '', ?, ?, ?, ?, ?, NULL, ?) ON CONFLICT DO NOTHING`
	sqlTurnFinish = `UPDATE turns SET status = ?1, seat = CASE WHEN ?2 <> '' THEN ?2 ELSE seat END, text = ?3, error = ?4, finished_at = ?5
		WHERE id = ?6 AND finished_at IS NULL`
	sqlJobInsert      = `INSERT INTO jobs (id, moment_id, created_at, seq) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING`
	sqlRecallInsert   = `INSERT INTO recalls (id, moment_id, turn_id, phrases, created_at, seq) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`
	sqlPhraseRecalled = `UPDATE phrases SET last_recalled_at = ?1 WHERE id = ?2`
	sqlPhraseKeep     = `INSERT INTO phrases (id, text, moment_id, kept_at, last_recalled_at, seq) VALUES (?, ?, ?, ?, NULL, ?) ON CONFLICT DO NOTHING`
	sqlPhraseUnkeep   = `DELETE FROM phrases WHERE id = ?`
	sqlRequestInsert  = `INSERT INTO requests (id, kind, moment_id, turn_id, seq) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`
	sqlLastSeq        = `UPDATE meta SET value = ? WHERE key = 'last_seq'`
)

var foldSQL = []string{
	sqlMomentInsert, sqlMomentEdit, sqlMomentDelete, sqlMediaInsert, sqlMomentCopy, sqlMomentOriginal,
	sqlTurnInsert, sqlTurnFinish, sqlJobInsert, sqlRecallInsert, sqlPhraseRecalled, sqlPhraseKeep,
	sqlPhraseUnkeep, sqlRequestInsert, sqlLastSeq,
}

type folder struct {
	once  sync.Once
	err   error
	stmts map[string]*sql.Stmt
}

func (m *DB) prepare(ctx context.Context) error {
	m.fold.once.Do(func() {
		m.fold.stmts = make(map[string]*sql.Stmt, len(foldSQL))
		for _, q := range foldSQL {
			st, err := m.w.PrepareContext(ctx, q)
			if err != nil {
				m.fold.err = fmt.Errorf("mirror %s: prepare the fold: %w", m.path, err)
				return
			}
			m.fold.stmts[q] = st
		}
	})
	return m.fold.err
}

// tx is one Apply's transaction with the fold's statements bound to it.
type tx struct {
	ctx   context.Context
	tx    *sql.Tx
	m     *DB
	bound map[string]*sql.Stmt
}

func (t *tx) exec(q string, args ...any) (sql.Result, error) {
	st, ok := t.bound[q]
	if !ok {
		st = t.tx.StmtContext(t.ctx, t.m.fold.stmts[q])
		t.bound[q] = st
	}
	return st.ExecContext(t.ctx, args...)
}

// Apply folds a batch of log records, in seq order, in one transaction that
// also stores the seq of the last one. Records at or below the mirror's last
// seq are skipped, so a batch applied twice changes nothing. A record whose
// seq does not follow the mirror's last one is refused: the mirror would miss
// ops.
func (m *DB) Apply(ctx context.Context, batch []oplog.Record) error {
	if len(batch) == 0 {
		return nil
	}
	m.applyMu.Lock()
	defer m.applyMu.Unlock()
	if err := m.prepare(ctx); err != nil {
		return err
	}
	sqltx, err := m.w.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("mirror %s: begin fold: %w", m.path, err)
	}
	defer sqltx.Rollback()
	t := &tx{ctx: ctx, tx: sqltx, m: m, bound: make(map[string]*sql.Stmt)}
	defer func() {
		for _, st := range t.bound {
			st.Close()
		}
	}()
	// Only Apply writes the mirror, one call at a time, so the last seq
	// it stored is known without reading it back.
	last := m.lastSeq.Load()
	applied := last
	for i := range batch {
		r := &batch[i]
		if r.Seq <= applied {
			continue
		}
		if r.Seq != applied+1 {
			return fmt.Errorf("mirror %s: op seq %d does not follow the last one folded (%d); rebuild the mirror with `spark-engine rebuild`", m.path, r.Seq, applied)
		}
		if err := t.fold(r); err != nil {
			return fmt.Errorf("mirror %s: fold op %d (%s): %w", m.path, r.Seq, r.Op, err)
		}
		applied = r.Seq
	}
	if applied == last {
		return nil
	}
	if _, err := t.exec(sqlLastSeq, int64(applied)); err != nil {
		return fmt.Errorf("mirror %s: store last seq: %w", m.path, err)
	}
	if err := sqltx.Commit(); err != nil {
		return fmt.Errorf("mirror %s: commit fold: %w", m.path, err)
	}
	m.lastSeq.Store(applied)
	return nil
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
		if _, err := t.exec(sqlMomentInsert, d.ID, d.Kind, d.Caption, nullTime(d.TakenAt), at, at,
			nullString(d.CopyID), nullString(d.OriginalID), nullString(r.RequestID), seq); err != nil {
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
		return t.request(r, kind, d.ID, turn)
	case api.OpMomentEdit:
		var d MomentEdit
		if err := json.Unmarshal(r.Data, &d); err != nil {
			return err
		}
		var caption string
		if d.Caption != nil {
			caption = *d.Caption
		}
		_, err := t.exec(sqlMomentEdit, d.Caption != nil, caption, d.TakenAt != nil, nullTime(d.TakenAt), at, d.ID)
		return err
	case api.OpMomentDelete:
		var d MomentDelete
		if err := json.Unmarshal(r.Data, &d); err != nil {
			return err
		}
		_, err := t.exec(sqlMomentDelete, at, d.ID)
		return err
	case api.OpMediaPut:
		var d MediaPut
		if err := json.Unmarshal(r.Data, &d); err != nil {
			return err
		}
		if _, err := t.exec(sqlMediaInsert, d.ID, d.MomentID, d.Role, d.SHA256, d.Size, d.ContentType, at, seq); err != nil {
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
		if _, err := t.exec(sqlTurnInsert, d.ID, d.MomentID, d.Mode, d.Seat, r.RequestID, d.Job, d.JobIndex, d.Recall, at, seq); err != nil {
			return err
		}
		kind := RequestTurn
		switch {
		case d.Job != "":
			kind = RequestJob
			if _, err := t.exec(sqlJobInsert, d.Job, d.MomentID, at, seq); err != nil {
				return err
			}
		case d.Recall != "":
			kind = RequestRecall
		}
		return t.request(r, kind, d.MomentID, d.ID)
	case api.OpTurnFinish:
		var d TurnFinish
		if err := json.Unmarshal(r.Data, &d); err != nil {
			return err
		}
		_, err := t.exec(sqlTurnFinish, d.Status, d.Seat, d.Text, d.Error, at, d.ID)
		return err
	case api.OpPhraseKeep:
		var d PhraseKeep
		if err := json.Unmarshal(r.Data, &d); err != nil {
			return err
		}
		_, err := t.exec(sqlPhraseKeep, d.ID, d.Text, d.MomentID, at, seq)
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

// request remembers what a request id produced; the first producer wins.
func (t *tx) request(r *oplog.Record, kind, momentID, turnID string) error {
	if r.RequestID == "" {
		return nil
	}
	t.m.ids.add(requestIDs, r.RequestID)
	_, err := t.exec(sqlRequestInsert, r.RequestID, kind, momentID, turnID, int64(r.Seq))
	return err
}
