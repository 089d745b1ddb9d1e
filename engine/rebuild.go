package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/sparkfamily/spark/engine/mirror"
	"github.com/sparkfamily/spark/engine/oplog"
	"github.com/sparkfamily/spark/internal/atomicfile"
)

// sqliteSuffixes are the files SQLite keeps beside a database in WAL mode.
var sqliteSuffixes = []string{"", "-wal", "-shm"}

// removeDB removes a database file and its WAL files.
func removeDB(path string) error {
	for _, s := range sqliteSuffixes {
		if err := os.Remove(path + s); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}

// foldInto folds the whole log at logPath into a fresh mirror at path, in
// large transactions, up to seq upTo (0: to the end), and syncs it.
func foldInto(ctx context.Context, l *oplog.Log, path string, upTo uint64) error {
	if err := removeDB(path); err != nil {
		return fmt.Errorf("remove the leftover %s: %w", path, err)
	}
	m, err := mirror.Open(ctx, path, mirror.Options{Bulk: true})
	if err != nil {
		return err
	}
	if err := foldLog(ctx, l, m, 0, upTo); err != nil {
		m.Close()
		return err
	}
	if err := m.Checkpoint(ctx); err != nil {
		m.Close()
		return err
	}
	if err := m.Close(); err != nil {
		return err
	}
	return syncFile(path)
}

func syncFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

// FoldLogInto folds the whole log at logPath (opened read-only) into a
// new mirror at mirrorPath, synced: Rebuild's fold without its swap. A
// restore folds the log it is writing, under another name, while its
// photos are still coming, and moves the mirror into place itself.
func FoldLogInto(ctx context.Context, logPath, mirrorPath string, logger *slog.Logger) error {
	if logger == nil {
		logger = slog.Default()
	}
	l, err := oplog.Open(logPath, oplog.Options{Logger: logger, ReadOnly: true})
	if err != nil {
		return fmt.Errorf("fold %s: %w", logPath, err)
	}
	defer l.Close()
	if c := l.Cut(); c != nil {
		return fmt.Errorf("fold %s: it ends with %d bytes a write cut short (%s)", logPath, c.Bytes, c.Reason)
	}
	if err := foldInto(ctx, l, mirrorPath, 0); err != nil {
		removeDB(mirrorPath)
		return fmt.Errorf("fold %s into %s: %w", logPath, mirrorPath, err)
	}
	return nil
}

// Rebuild rebuilds the mirror of the data directory dir from its log: it
// folds the whole log into a fresh mirror beside the old one (in large
// transactions, in constant memory), then swaps it in. It takes the data
// directory's lock, so it is refused while an engine runs on dir (and an
// engine is refused while it runs). It reads the log without changing it:
// a log with a damaged record is refused, never cut; a write cut short at
// its end is left for the engine to save aside and cut when it opens.
func Rebuild(ctx context.Context, dir string, logger *slog.Logger) error {
	if logger == nil {
		logger = slog.Default()
	}
	logPath := filepath.Join(dir, LogFile)
	if _, err := os.Stat(logPath); err != nil {
		return fmt.Errorf("rebuild: no op log in %s: %w", dir, err)
	}
	lock, err := LockDir(dir, "rebuilding the mirror")
	if err != nil {
		return err
	}
	defer lock.Release()
	l, err := oplog.Open(logPath, oplog.Options{Logger: logger, ReadOnly: true})
	if err != nil {
		return fmt.Errorf("rebuild: %w", err)
	}
	defer l.Close()
	if c := l.Cut(); c != nil {
		logger.Warn("rebuild: the log ends with a write cut short, never acknowledged; the mirror is rebuilt without it, and the engine saves it aside and cuts it when it next opens",
			"log", logPath, "offset", c.Offset, "bytes", c.Bytes, "reason", c.Reason)
	}
	start := time.Now()
	live := filepath.Join(dir, MirrorFile)
	fresh := live + ".rebuild"
	logger.Info("rebuild: folding the log into a fresh mirror", "log", logPath, "ops", l.LastSeq(), "mirror", fresh)
	if err := foldInto(ctx, l, fresh, 0); err != nil {
		removeDB(fresh)
		return fmt.Errorf("rebuild: %w", err)
	}
	// Move the old mirror aside, then put the fresh one in its place. The
	// old WAL files go too: SQLite would otherwise replay them into the
	// fresh database.
	old := live + ".old"
	if err := removeDB(old); err != nil {
		return fmt.Errorf("rebuild: %w", err)
	}
	for _, s := range sqliteSuffixes {
		if err := os.Rename(live+s, old+s); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("rebuild: move the old mirror aside: %w", err)
		}
	}
	if err := os.Rename(fresh, live); err != nil {
		return fmt.Errorf("rebuild: swap in the fresh mirror: %w", err)
	}
	if err := atomicfile.SyncDir(dir); err != nil {
		return fmt.Errorf("rebuild: %w", err)
	}
	if err := removeDB(old); err != nil {
		logger.Warn("rebuild: remove the old mirror", "path", old, "err", err)
	}
	logger.Info("rebuild: done", "ops", l.LastSeq(), "took", time.Since(start).Round(time.Millisecond))
	return nil
}
