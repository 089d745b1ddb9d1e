package mirror

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/oplog"
)

// Exec runs one statement in a fold's transaction (see ApplyWith).
type Exec func(query string, args ...any) error

// ApplyWith folds batch as Apply does and, in the same transaction, lets
// extra write rows of the caller's own tables (a replica keeps the engine it
// copies and its last op beside the ops it folded): the fold, the last seq
// and what extra wrote are committed together or not at all. With nothing
// new in batch, extra alone runs in a transaction. An error of extra drops
// the whole transaction and is returned.
func (m *DB) ApplyWith(ctx context.Context, batch []oplog.Record, extra func(Exec) error) error {
	m.applyMu.Lock()
	s, err := m.stage(ctx, batch)
	if err != nil {
		m.applyMu.Unlock()
		return err
	}
	if s.tx == nil {
		if err := m.prepare(ctx); err != nil {
			s.Abort()
			return err
		}
		t := &tx{ctx: context.WithoutCancel(ctx), m: m}
		if _, err := t.exec(sqlBegin); err != nil {
			s.Abort()
			return fmt.Errorf("mirror %s: begin: %w", m.path, err)
		}
		s.tx = t
	}
	exec := func(q string, args ...any) error {
		_, err := m.fold.conn.ExecContext(s.tx.ctx, q, args...)
		return err
	}
	if err := extra(exec); err != nil {
		s.Abort()
		return fmt.Errorf("mirror %s: %w", m.path, err)
	}
	return s.Commit()
}

// QueryRow runs a one-row query on the mirror's read connections, for the
// tables a caller of ApplyWith keeps beside the mirror's own.
func (m *DB) QueryRow(ctx context.Context, q string, args ...any) *sql.Row {
	m.awaitFold(ctx)
	return m.r.QueryRowContext(ctx, q, args...)
}

// LiveCopy is the small copy of a live moment.
type LiveCopy struct {
	MomentID  string
	CreatedAt time.Time
	Media     api.Media
}

// EachLiveCopy calls fn for the small copy of every live moment that has
// one, the most recently created first (the order of a cache that counts a
// copy never viewed as viewed when its moment was created).
func (m *DB) EachLiveCopy(ctx context.Context, fn func(LiveCopy) error) error {
	rows, err := m.query(ctx, `SELECT mo.id, mo.created_at, md.id, md.moment_id, md.role, md.sha256, md.size, md.content_type
		FROM moments mo JOIN media md ON md.id = mo.copy_id
		WHERE mo.deleted_at IS NULL ORDER BY mo.created_at DESC, mo.id DESC`)
	if err != nil {
		return m.wrap("list copies", err)
	}
	defer rows.Close()
	for rows.Next() {
		var c LiveCopy
		var created int64
		if err := rows.Scan(&c.MomentID, &created, &c.Media.ID, &c.Media.MomentID, &c.Media.Role, &c.Media.SHA256, &c.Media.Size, &c.Media.ContentType); err != nil {
			return m.wrap("list copies", err)
		}
		c.CreatedAt = timeOf(created)
		if err := fn(c); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return m.wrap("list copies", err)
	}
	return nil
}
