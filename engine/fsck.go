package engine

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/media"
	"github.com/sparkfamily/spark/engine/mirror"
	"github.com/sparkfamily/spark/engine/oplog"
	"github.com/sparkfamily/spark/internal/sqlitedb"
)

// maxFsckDiffs bounds the differences fsck prints per table.
const maxFsckDiffs = 10

// Fsck checks the data directory dir and prints its findings to w: every
// log record's checksum, the mirror against a fresh fold of the log (table
// by table), and every media blob's SHA-256. ok is true only when all hold;
// err is for a check that could not run.
//
// Fsck changes nothing and takes no lock, so it can run beside a live
// engine: it reads the log through a read-only open (a write cut short at
// its end is reported, never cut), compares a snapshot of the mirror taken
// in one read transaction of a read-only connection, and reads the media
// without touching the store's temp files. Its only writes are to a
// temporary folder in dir ("fsck-PID-TIME-*"), which it removes, saying so
// if it cannot; the next fsck removes what an earlier one (killed, or
// refused the removal) left there (sweepFsckDirs). It also removes the
// resumable uploads with no progress for 24 hours (sweepUploadsFsck), as
// the engine itself does. (SQLite may leave its empty -wal and -shm files beside a mirror
// it opened read-only.)
func Fsck(ctx context.Context, dir string, w io.Writer) (ok bool, err error) {
	return FsckWith(ctx, dir, w, FsckOptions{})
}

// FsckOptions change what Fsck checks.
type FsckOptions struct {
	// Absent, if set, names the blobs (by SHA-256) left out of the folder
	// on purpose, as a drill of the off-site copy that fetched only a
	// sample of the photos leaves them: their media records are counted,
	// not re-hashed, and their absence is no problem.
	Absent func(sha256hex string) bool
	// Hashed, if set, names the blobs the caller hashed as it wrote them,
	// moments before (a restore, which checked each against the SHA-256
	// its record gives): fsck checks each is there at its record's size
	// and does not read it all again.
	Hashed func(sha256hex string) bool
	// Folded says the caller folded the mirror from the whole of this
	// log moments ago, with nothing written since (a restore): fsck checks
	// the log, that the mirror has folded all of it, and the media the
	// mirror names, and does not fold the log a second time only to
	// compare two folds of it.
	Folded bool
}

// FsckWith is Fsck with options.
func FsckWith(ctx context.Context, dir string, w io.Writer, opts FsckOptions) (ok bool, err error) {
	problems := 0
	fail := func(format string, args ...any) {
		problems++
		fmt.Fprintf(w, "FAIL "+format+"\n", args...)
	}
	logPath := filepath.Join(dir, LogFile)
	if _, err := os.Stat(logPath); err != nil {
		return false, fmt.Errorf("fsck: no op log in %s: %w", dir, err)
	}
	now := time.Now()
	sweepFsckDirs(dir, now, w)
	sweepUploadsFsck(dir, now, w) // uploads.go
	tmpDir, err := os.MkdirTemp(dir, fmt.Sprintf("%s%d-%d-", fsckPrefix, os.Getpid(), now.Unix()))
	if err != nil {
		return false, fmt.Errorf("fsck: %w", err)
	}
	err = fsck(ctx, dir, tmpDir, w, fail, opts)
	if rerr := removeAll(tmpDir); rerr != nil {
		fmt.Fprintf(w, "warn could not remove fsck's temporary folder %s (%v); the next fsck tries again, or remove it by hand\n", tmpDir, rerr)
	}
	if err != nil {
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		return false, err
	}
	if problems > 0 {
		fmt.Fprintf(w, "fsck: %d problem(s) found\n", problems)
		return false, nil
	}
	fmt.Fprintln(w, "fsck: all good")
	return true, nil
}

// fsckPrefix starts the name of fsck's temporary folders in the data
// folder: fsck-PID-UNIXTIME-RANDOM (older versions: fsck-RANDOM).
const fsckPrefix = "fsck-"

// fsckStaleAfter is how old a temporary folder must be before another fsck
// removes it: far longer than any fsck runs, so that a concurrent fsck
// (beside this one, or beside a live engine) keeps its own.
var fsckStaleAfter = 24 * time.Hour

// removeAll removes fsck's temporary folders; tests swap it for one that
// refuses, as Windows does while another program holds a file there open.
var removeAll = os.RemoveAll

// sweepFsckDirs removes the temporary folders that earlier fsck runs left
// in dir (killed before their clean-up, or refused it), once older than
// fsckStaleAfter by the time in their name (or, for a name without one, by
// the folder's modification time), and says so on w; one it cannot remove
// it names, and leaves for the next fsck.
func sweepFsckDirs(dir string, now time.Time, w io.Writer) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return // fsck reads dir next and says what is wrong
	}
	for _, e := range ents {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), fsckPrefix) {
			continue
		}
		made, ok := fsckDirTime(e.Name())
		if !ok {
			info, err := e.Info()
			if err != nil {
				continue
			}
			made = info.ModTime()
		}
		if now.Sub(made) < fsckStaleAfter {
			continue // perhaps another fsck's, running now
		}
		path := filepath.Join(dir, e.Name())
		if err := removeAll(path); err != nil {
			fmt.Fprintf(w, "warn could not remove %s, left by an earlier fsck (%v); the next fsck tries again, or remove it by hand\n", path, err)
			continue
		}
		fmt.Fprintf(w, "note removed %s, left by an earlier fsck that did not finish\n", path)
	}
}

// fsckDirTime is when the fsck that named a temporary folder
// fsck-PID-UNIXTIME-RANDOM started.
func fsckDirTime(name string) (time.Time, bool) {
	parts := strings.Split(strings.TrimPrefix(name, fsckPrefix), "-")
	if len(parts) != 3 {
		return time.Time{}, false
	}
	if _, err := strconv.Atoi(parts[0]); err != nil {
		return time.Time{}, false
	}
	sec, err := strconv.ParseInt(parts[1], 10, 64)
	if err != nil {
		return time.Time{}, false
	}
	return time.Unix(sec, 0), true
}

func fsck(ctx context.Context, dir, tmpDir string, w io.Writer, fail func(string, ...any), opts FsckOptions) error {
	if opts.Folded {
		return fsckFolded(ctx, dir, w, fail, opts)
	}
	// The mirror first, then the log: a running engine folds an op only
	// after it is in the log, so the log read after the snapshot holds
	// every op the snapshot has folded.
	livePath := filepath.Join(dir, MirrorFile)
	var live *mirror.DB
	if _, err := os.Stat(livePath); errors.Is(err, os.ErrNotExist) {
		// Opening it would create one, and fsck changes nothing.
		fmt.Fprintf(w, "note no mirror %s; the engine folds the log into a new one when it opens\n", livePath)
	} else {
		snap := filepath.Join(tmpDir, "live-"+MirrorFile)
		if err := snapshotMirror(ctx, livePath, snap); err != nil {
			fail("mirror %s: cannot read it: %v; rebuild it with `spark-engine rebuild --data %s`", livePath, err, dir)
		} else if live, err = mirror.Open(ctx, snap, mirror.Options{Members: logMembers(filepath.Join(dir, LogFile), nil)}); err != nil {
			fail("mirror %s: %v", livePath, err)
			live = nil
		} else {
			defer live.Close()
		}
	}

	logPath := filepath.Join(dir, LogFile)
	l, err := openLogToCheck(ctx, logPath, fail)
	if l == nil {
		if err == nil {
			fmt.Fprintln(w, "     the mirror and media were not checked against a damaged log")
		}
		return err
	}
	defer l.Close()
	last := l.LastSeq()
	fmt.Fprintf(w, "ok   log %s: %d records, checksums good, last seq %d\n", logPath, last, last)
	if c := l.Cut(); c != nil {
		fmt.Fprintf(w, "note log %s ends with %d bytes after seq %d that a write cut short left (%s); they were never acknowledged. The engine saves them to %s.cut-%d and cuts them when it next opens; beside a running engine, this is an append in flight\n",
			logPath, c.Bytes, last, c.Reason, LogFile, c.Offset)
	}

	upTo := last
	if live != nil {
		have, err := live.LastSeq(ctx)
		if err != nil {
			return fmt.Errorf("fsck: %w", err)
		}
		if have > last {
			fail("mirror %s has folded ops up to seq %d but the log ends at seq %d: answered ops are missing from the log; restore the log from a backup, the newest you have (%s.cut-* files beside it hold what was cut, if anything was), and only if they are truly gone rebuild the mirror with `spark-engine rebuild --data %s`", livePath, have, last, LogFile, dir)
			return nil
		}
		if have < last {
			fmt.Fprintf(w, "note mirror %s is behind the log (seq %d of %d); the engine folds the rest when it opens\n", livePath, have, last)
		}
		upTo = have
	}

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
		if ctx.Err() != nil {
			return ctx.Err()
		}
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
	return fsckMedia(ctx, dir, fold, w, fail, opts)
}

// openLogToCheck opens the log at path read-only. A log that cannot be
// read is a failure fsck reports (nil, nil); a stopped fsck returns its
// context's error.
func openLogToCheck(ctx context.Context, path string, fail func(string, ...any)) (*oplog.Log, error) {
	l, err := oplog.Open(path, oplog.Options{Logger: slog.New(slog.DiscardHandler), ReadOnly: true})
	if err == nil {
		return l, nil
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	fail("log %s: %v", path, err)
	return nil, nil
}

// fsckFolded is fsck of a folder whose mirror the caller has just folded
// from its whole log (FsckOptions.Folded): the log read and its checksums
// checked, the mirror's last seq the log's, and the media the mirror names.
func fsckFolded(ctx context.Context, dir string, w io.Writer, fail func(string, ...any), opts FsckOptions) error {
	logPath, livePath := filepath.Join(dir, LogFile), filepath.Join(dir, MirrorFile)
	l, err := openLogToCheck(ctx, logPath, fail)
	if l == nil {
		return err
	}
	last, cut := l.LastSeq(), l.Cut()
	l.Close()
	fmt.Fprintf(w, "ok   log %s: %d records, checksums good, last seq %d\n", logPath, last, last)
	if cut != nil {
		fail("log %s ends with %d bytes after seq %d that a write cut short left (%s), in a folder nothing writes", logPath, cut.Bytes, last, cut.Reason)
		return nil
	}
	m, err := mirror.Open(ctx, livePath, mirror.Options{Members: logMembers(logPath, nil)})
	if err != nil {
		fail("mirror %s: %v", livePath, err)
		return nil
	}
	defer m.Close()
	have, err := m.LastSeq(ctx)
	if err != nil {
		return fmt.Errorf("fsck: %w", err)
	}
	if have != last {
		fail("mirror %s has folded ops up to seq %d, the log ends at seq %d; rebuild it with `spark-engine rebuild --data %s`", livePath, have, last, dir)
		return nil
	}
	fmt.Fprintf(w, "ok   mirror %s was folded from the whole log, up to seq %d\n", livePath, last)
	return fsckMedia(ctx, dir, m, w, fail, opts)
}

// snapshotMirror copies the mirror at path to a new database at to, from
// one read transaction of a read-only connection (VACUUM INTO): a
// consistent copy even while an engine writes the mirror, taken without
// writing to it.
func snapshotMirror(ctx context.Context, path, to string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	db, err := sql.Open("sqlite", sqlitedb.DSN(abs, url.Values{"mode": {"ro"}, "_pragma": {"busy_timeout(10000)"}}))
	if err != nil {
		return err
	}
	defer db.Close()
	_, err = db.ExecContext(ctx, "VACUUM INTO ?", to)
	return err
}

// sizeIs checks that the blob sha is in store with size bytes.
func sizeIs(store *media.Store, sha string, size int64) error {
	p, err := store.Path(sha)
	if err != nil {
		return err
	}
	fi, err := os.Stat(p)
	if err != nil {
		return err
	}
	if fi.Size() != size {
		return fmt.Errorf("%d bytes, the record says %d", fi.Size(), size)
	}
	return nil
}

// fsckMedia re-hashes the blob of every media record of m but those
// opts.Absent names (left out) and opts.Hashed names (sized only).
func fsckMedia(ctx context.Context, dir string, m *mirror.DB, w io.Writer, fail func(string, ...any), opts FsckOptions) error {
	store, err := media.OpenWith(filepath.Join(dir, MediaDir), media.Options{ReadOnly: true, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		fail("media: %v", err)
		return nil
	}
	n, bad, skipped, sized := 0, 0, 0, 0
	err = m.EachMedia(ctx, func(md api.Media) error {
		if opts.Absent != nil && opts.Absent(md.SHA256) {
			skipped++
			return nil
		}
		var verr error
		if opts.Hashed != nil && opts.Hashed(md.SHA256) {
			sized++
			verr = sizeIs(store, md.SHA256, md.Size)
		} else {
			n++
			verr = store.Verify(ctx, md.SHA256)
		}
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
		if sized > 0 {
			fmt.Fprintf(w, "ok   media: %d blobs hashed as they were written, all there at their size\n", sized)
		}
	}
	if skipped > 0 {
		fmt.Fprintf(w, "note media: %d records' blobs left out on purpose, not checked\n", skipped)
	}
	return nil
}
