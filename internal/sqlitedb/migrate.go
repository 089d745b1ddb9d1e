package sqlitedb

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"
)

// Migration takes a database's schema from version Version-1 to Version
// (PRAGMA user_version).
type Migration struct {
	Version int
	SQL     string
	// Go, when set, completes SQL in its transaction: what SQL alone cannot
	// derive from the rows already there.
	Go func(context.Context, *sql.Tx) error
}

// VersionError is a database whose version no migration leads on from:
// newer than the last (written by a newer program), or older than the
// first.
type VersionError struct {
	Have, Want int
}

func (e *VersionError) Error() string {
	if e.Have > e.Want {
		return fmt.Sprintf("database version %d is newer than %d, the newest this program knows", e.Have, e.Want)
	}
	return fmt.Sprintf("database version %d is older than any migration to version %d", e.Have, e.Want)
}

// Migrate is the one migration helper of Spark's databases (the outbox,
// the engine's mirror and so the replica, which is a mirror): it brings db
// from its user_version up to the last of steps (in order of Version, one
// after another without gaps), each step and its new user_version in one
// transaction, and returns the version it found. A version no step leads
// on from is a *VersionError, and nothing is changed.
func Migrate(ctx context.Context, db *sql.DB, steps []Migration) (int, error) {
	var have int
	if err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&have); err != nil {
		return 0, err
	}
	if len(steps) == 0 {
		return have, nil
	}
	want := steps[len(steps)-1].Version
	if have > want || have < steps[0].Version-1 {
		return have, &VersionError{Have: have, Want: want}
	}
	for _, m := range steps {
		if m.Version <= have {
			continue
		}
		if err := step(ctx, db, m); err != nil {
			return have, fmt.Errorf("migrate to version %d: %w", m.Version, err)
		}
	}
	return have, nil
}

func step(ctx context.Context, db *sql.DB, m Migration) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, m.SQL); err != nil {
		return err
	}
	if m.Go != nil {
		if err := m.Go(ctx, tx); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, "PRAGMA user_version = "+strconv.Itoa(m.Version)); err != nil {
		return err
	}
	return tx.Commit()
}

// MigrationFiles reads the migrations of dir in fsys: files named
// NNN_name.sql, NNN from 001 without gaps, NNN taking the schema from
// version NNN-1 to NNN.
func MigrationFiles(fsys fs.FS, dir string) ([]Migration, error) {
	ents, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, err
	}
	var out []Migration
	for i, e := range ents {
		num, _, ok := strings.Cut(e.Name(), "_")
		n, err := strconv.Atoi(num)
		if !ok || err != nil || n != i+1 || !strings.HasSuffix(e.Name(), ".sql") {
			return nil, fmt.Errorf("migration %s: want NNN_name.sql numbered %03d", e.Name(), i+1)
		}
		b, err := fs.ReadFile(fsys, path.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		out = append(out, Migration{Version: n, SQL: string(b)})
	}
	return out, nil
}
