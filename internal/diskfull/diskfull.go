// Package diskfull tells whether an error means the disk (or the user's
// share of it) is full, the same way for the whole program: the engine's
// health, the outbox's capture and drain. Each OS says it with its own
// error numbers (diskfull_windows.go, diskfull_other.go); SQLite says it
// with SQLITE_FULL on every one.
package diskfull

import (
	"errors"
	"syscall"

	sqlite3 "modernc.org/sqlite/lib"

	"github.com/sparkfamily/spark/internal/sqlitedb"
)

// Is reports whether err, or an error it wraps, means no space is left:
// one of this OS's error numbers for a full disk or quota, or SQLite's
// SQLITE_FULL.
func Is(err error) bool {
	if err == nil {
		return false
	}
	var errno syscall.Errno
	if errors.As(err, &errno) {
		for _, c := range codes {
			if errno == c {
				return true
			}
		}
	}
	return sqlitedb.Code(err) == sqlite3.SQLITE_FULL
}
