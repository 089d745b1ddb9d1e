package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/sparkfamily/spark/api"
	"github.com/sparkfamily/spark/engine/media"
	"github.com/sparkfamily/spark/engine/mirror"
	"github.com/sparkfamily/spark/engine/oplog"
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
	batch := make([]oplog.Record, 0, catchUpBatch)
	errStop := errors.New("stop")
	err = l.Scan(ctx, 0, func(r oplog.Record) error {
		if upTo != 0 && r.Seq > upTo {
			return errStop
		}
		batch = append(batch, r)
		if len(batch) == catchUpBatch {
			if err := m.Apply(ctx, batch); err != nil {
				return err
			}
			clear(batch)
			batch = batch[:0]
		}
		return nil
	})
	if err != nil && !errors.Is(err, errStop) {
		m.Close()
		return err
	}
	if err := m.Apply(ctx, batch); err != nil {
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

// Rebuild rebuilds the mirror of the data directory dir from its log: it
// folds the whole log into a fresh mirror beside the old one (in large
// transactions, in constant memory), then swaps it in. The engine must not
// be running on dir.
func Rebuild(ctx context.Context, dir string, logger *slog.Logger) error {
	if logger == nil {
		logger = slog.Default()
	}
	logPath := filepath.Join(dir, LogFile)
	if _, err := os.Stat(logPath); err != nil {
		return fmt.Errorf("rebuild: no op log in %s: %w", dir, err)
	}
	l, err := oplog.Open(logPath, oplog.Options{Logger: logger})
	if err != nil {
		return fmt.Errorf("rebuild: %w", err)
	}
	defer l.Close()
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
	if err := syncDir(dir); err != nil {
		return fmt.Errorf("rebuild: %w", err)
	}
	if err := removeDB(old); err != nil {
		logger.Warn("rebuild: remove the old mirror", "path", old, "err", err)
	}
	logger.Info("rebuild: done", "ops", l.LastSeq(), "took", time.Since(start).Round(time.Millisecond))
	return nil
}

// maxFsckDiffs bounds the differences fsck prints per table.
const maxFsckDiffs = 10

// Fsck checks the data directory dir and prints its findings to w: every
// log record's checksum, the mirror against a fresh fold of the log (table
// by table), and every media blob's SHA-256. ok is true only when all hold;
// err is for a check that could not run. The engine should not be running
// on dir (its mirror would move under the comparison).
func Fsck(ctx context.Context, dir string, w io.Writer) (ok bool, err error) {
	problems := 0
	fail := func(format string, args ...any) {
		problems++
		fmt.Fprintf(w, "FAIL "+format+"\n", args...)
	}
	logPath := filepath.Join(dir, LogFile)
	if _, err := os.Stat(logPath); err != nil {
		return false, fmt.Errorf("fsck: no op log in %s: %w", dir, err)
	}

	records, last, err := oplog.Verify(ctx, logPath)
	if err != nil {
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		fail("log %s: %v", logPath, err)
		fmt.Fprintf(w, "fsck: %d problem(s); the mirror and media were not checked against a damaged log\n", problems)
		return false, nil
	}
	fmt.Fprintf(w, "ok   log %s: %d records, checksums good, last seq %d\n", logPath, records, last)

	livePath := filepath.Join(dir, MirrorFile)
	live, err := mirror.Open(ctx, livePath, mirror.Options{})
	if err != nil {
		fail("mirror: %v", err)
	} else {
		defer live.Close()
		if err := fsckMirror(ctx, dir, live, last, w, fail); err != nil {
			return false, err
		}
		if err := fsckMedia(ctx, dir, live, w, fail); err != nil {
			return false, err
		}
	}
	if problems > 0 {
		fmt.Fprintf(w, "fsck: %d problem(s) found\n", problems)
		return false, nil
	}
	fmt.Fprintln(w, "fsck: all good")
	return true, nil
}

// fsckMirror compares the live mirror with a fresh fold of the log up to
// the live mirror's last seq. A mirror behind the log is not a fault (the
// engine catches it up when it opens); one ahead of it is.
func fsckMirror(ctx context.Context, dir string, live *mirror.DB, last uint64, w io.Writer, fail func(string, ...any)) error {
	have, err := live.LastSeq(ctx)
	if err != nil {
		fail("mirror: %v", err)
		return nil
	}
	if have > last {
		fail("mirror %s has folded ops up to seq %d but the log ends at seq %d; rebuild it with `spark-engine rebuild --data %s`", live.Path(), have, last, dir)
		return nil
	}
	if have < last {
		fmt.Fprintf(w, "note mirror %s is behind the log (seq %d of %d); the engine folds the rest when it opens\n", live.Path(), have, last)
	}
	if have == 0 {
		fmt.Fprintf(w, "ok   mirror %s: empty, as the fold of no ops\n", live.Path())
		return nil
	}
	l, err := oplog.Open(filepath.Join(dir, LogFile), oplog.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		fail("log: %v", err)
		return nil
	}
	defer l.Close()
	tmpDir, err := os.MkdirTemp(dir, "fsck-")
	if err != nil {
		return fmt.Errorf("fsck: %w", err)
	}
	defer os.RemoveAll(tmpDir)
	foldPath := filepath.Join(tmpDir, MirrorFile)
	if err := foldInto(ctx, l, foldPath, have); err != nil {
		fail("fold of the log: %v", err)
		return nil
	}
	fold, err := mirror.Open(ctx, foldPath, mirror.Options{})
	if err != nil {
		return fmt.Errorf("fsck: %w", err)
	}
	defer fold.Close()
	diffs, err := mirror.Diff(ctx, fold, live, maxFsckDiffs)
	if err != nil {
		return fmt.Errorf("fsck: %w", err)
	}
	if len(diffs) == 0 {
		fmt.Fprintf(w, "ok   mirror %s equals the fold of the log up to seq %d, table by table\n", live.Path(), have)
		return nil
	}
	fail("mirror %s differs from the fold of the log (first: the fold, second: the mirror); rebuild it with `spark-engine rebuild --data %s`:", live.Path(), dir)
	for _, d := range diffs {
		fmt.Fprintf(w, "     %s\n", d)
	}
	return nil
}

// fsckMedia re-hashes the blob of every media record.
func fsckMedia(ctx context.Context, dir string, live *mirror.DB, w io.Writer, fail func(string, ...any)) error {
	store, err := media.Open(filepath.Join(dir, MediaDir), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		fail("media: %v", err)
		return nil
	}
	n, bad := 0, 0
	err = live.EachMedia(ctx, func(md api.Media) error {
		n++
		verr := store.Verify(ctx, md.SHA256)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if verr != nil {
			bad++
			fail("media %s (%s of moment %s, SHA-256 %s): %v", md.ID, md.Role, md.MomentID, md.SHA256, verr)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("fsck: %w", err)
	}
	if bad == 0 {
		fmt.Fprintf(w, "ok   media: %d blobs re-hashed, all match their SHA-256\n", n)
	}
	return nil
}
