package sqlitedb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// ErrHeld is returned by Lock while another connection (another process, or
// another Lock in this one) holds the lock. Callers wrap it in their own
// "in use" error.
var ErrHeld = errors.New("the lock is held by another connection")

// Lock holds an exclusive SQLite lock on the small file at path for as long
// as the returned handle is open: the outbox's and the replica's "one
// process at a time". SQLite's locking works the same on every desktop and
// the operating system drops it when the process dies, even by SIGKILL.
// While another connection holds it, Lock fails at once with an error
// wrapping ErrHeld.
func Lock(ctx context.Context, path string) (*sql.DB, error) {
	db, err := sql.Open("sqlite", DSN(path, url.Values{"_pragma": {"locking_mode(EXCLUSIVE)", "busy_timeout(0)"}}))
	if err != nil {
		return nil, fmt.Errorf("open the lock %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	// The first write in EXCLUSIVE locking mode takes a lock that the
	// connection keeps until it is closed.
	if _, err := db.ExecContext(ctx, "CREATE TABLE IF NOT EXISTS lock (x); BEGIN EXCLUSIVE; DELETE FROM lock; COMMIT"); err != nil {
		db.Close()
		if c := Code(err); c == sqlite3.SQLITE_BUSY || c == sqlite3.SQLITE_LOCKED {
			return nil, fmt.Errorf("take the lock %s: %w", path, ErrHeld)
		}
		return nil, fmt.Errorf("take the lock %s: %w", path, err)
	}
	return db, nil
}

// Code is the primary SQLite result code of err (SQLITE_FULL,
// SQLITE_BUSY...), or 0 when err did not come from SQLite.
func Code(err error) int {
	var se *sqlite.Error
	if errors.As(err, &se) {
		return se.Code() & 0xff // an extended code keeps the primary in its low byte
	}
	return 0
}
