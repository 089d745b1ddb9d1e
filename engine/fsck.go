package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/sparkfamily/spark/api"
	"github.com/sparkfamily/spark/engine/media"
	"github.com/sparkfamily/spark/engine/mirror"
	"github.com/sparkfamily/spark/engine/oplog"
)

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

	if err := fsckFold(ctx, dir, last, w, fail); err != nil {
		return false, err
	}
	if problems > 0 {
		fmt.Fprintf(w, "fsck: %d problem(s) found\n", problems)
		return false, nil
	}
	fmt.Fprintln(w, "fsck: all good")
	return true, nil
}

// fsckFold folds the log into a temporary mirror, up to the live mirror's
// last seq, compares the two table by table, and re-hashes the blob of
// every media record of the fold (the log's, not the mirror's). A mirror
// behind the log, or none at all, is not a fault: the engine folds the rest
// when it opens. One ahead of the log is.
func fsckFold(ctx context.Context, dir string, last uint64, w io.Writer, fail func(string, ...any)) error {
	livePath := filepath.Join(dir, MirrorFile)
	upTo := last
	var live *mirror.DB
	if _, err := os.Stat(livePath); errors.Is(err, os.ErrNotExist) {
		// Opening would create one, and fsck changes nothing.
		fmt.Fprintf(w, "note no mirror %s; the engine folds the log into a new one when it opens\n", livePath)
	} else {
		live, err = mirror.Open(ctx, livePath, mirror.Options{})
		if err != nil {
			fail("mirror: %v", err)
		} else {
			defer live.Close()
			have, _ := live.LastSeq(ctx)
			if have > last {
				fail("mirror %s has folded ops up to seq %d but the log ends at seq %d; restore the log from a backup, or rebuild the mirror with `spark-engine rebuild --data %s`", livePath, have, last, dir)
				return nil
			}
			if have < last {
				fmt.Fprintf(w, "note mirror %s is behind the log (seq %d of %d); the engine folds the rest when it opens\n", livePath, have, last)
			}
			upTo = have
		}
	}

	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	l, err := oplog.Open(filepath.Join(dir, LogFile), oplog.Options{Logger: quiet})
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
	if upTo == 0 {
		// An empty fold is a fresh mirror; foldInto would read the log to
		// its end.
		m, err := mirror.Open(ctx, foldPath, mirror.Options{})
		if err != nil {
			return fmt.Errorf("fsck: %w", err)
		}
		m.Close()
	} else if err := foldInto(ctx, l, foldPath, upTo); err != nil {
		fail("fold of the log: %v", err)
		return nil
	}
	fold, err := mirror.Open(ctx, foldPath, mirror.Options{})
	if err != nil {
		return fmt.Errorf("fsck: %w", err)
	}
	defer fold.Close()

	if live != nil {
		diffs, err := mirror.Diff(ctx, fold, live, maxFsckDiffs)
		if err != nil {
			return fmt.Errorf("fsck: %w", err)
		}
		if len(diffs) == 0 {
			fmt.Fprintf(w, "ok   mirror %s equals the fold of the log up to seq %d, table by table\n", livePath, upTo)
		} else {
			fail("mirror %s differs from the fold of the log (first: the fold, second: the mirror); rebuild it with `spark-engine rebuild --data %s`:", livePath, dir)
			for _, d := range diffs {
				fmt.Fprintf(w, "     %s\n", d)
			}
		}
	}
	return fsckMedia(ctx, dir, fold, w, fail)
}

// fsckMedia re-hashes the blob of every media record of m.
func fsckMedia(ctx context.Context, dir string, m *mirror.DB, w io.Writer, fail func(string, ...any)) error {
	store, err := media.Open(filepath.Join(dir, MediaDir), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		fail("media: %v", err)
		return nil
	}
	n, bad := 0, 0
	err = m.EachMedia(ctx, func(md api.Media) error {
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
