package sqlitedb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/sparkfamily/spark/internal/dirlock"
)

// LegacyLockFile is the lock file that the outbox and the replica of
// Sparks before the one queue (outbox schema 3) held with Lock.
const LegacyLockFile = "lock"

// ErrOlderSpark matches (errors.Is) a folder held by a Spark older than
// this one, which holds only the legacy lock and cannot say who it is.
var ErrOlderSpark = errors.New("the folder is in use by an older Spark process")

// FolderLock keeps a folder of this computer's (the outbox, the replica)
// to one process at a time, as the engine keeps its own: the folder lock
// that names its holder (dirlock, in the file name), and, beside it, the
// legacy lock of DIR/lock (Lock) that older Sparks took. The two are
// different kinds of lock (flock and SQLite's own byte-range locks), so
// neither sees the other: taking both means that an older Spark and this
// one never both open the folder, whichever starts first. An older Spark
// started second fails on DIR/lock as it always did; this one started
// second fails on dirlock (naming the holder) or, when an older Spark
// holds the folder, on DIR/lock (ErrOlderSpark).
type FolderLock struct {
	lock   *dirlock.Lock
	legacy *sql.DB
}

// LockFolder takes dir's folder lock (the file name, with purpose for
// whoever finds it held) and the legacy lock. A folder held by another
// process gives a *dirlock.HeldError, or ErrOlderSpark.
func LockFolder(ctx context.Context, dir, name, purpose string) (*FolderLock, error) {
	l, err := dirlock.TryLock(dir, name, purpose)
	if err != nil {
		return nil, err
	}
	legacy, err := Lock(ctx, filepath.Join(dir, LegacyLockFile))
	if err != nil {
		l.Release()
		if errors.Is(err, ErrHeld) {
			return nil, fmt.Errorf("%w (%s)", ErrOlderSpark, dir)
		}
		return nil, err
	}
	return &FolderLock{lock: l, legacy: legacy}, nil
}

// Release releases both locks. It may be called more than once.
func (f *FolderLock) Release() error {
	if f == nil {
		return nil
	}
	var errs []error
	if f.legacy != nil {
		errs = append(errs, f.legacy.Close())
		f.legacy = nil
	}
	errs = append(errs, f.lock.Release())
	return errors.Join(errs...)
}
