package outbox

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/sparkfamily/spark/atomicfile"
	"github.com/sparkfamily/spark/photo"
)

// Names of an entry's files inside files/<id>/.
const (
	originalName = "original"
	copyName     = "copy.jpg"
)

// CaptureOptions tune one Capture call.
type CaptureOptions struct {
	// Force captures a photo even when the same original (by SHA-256) is
	// already in the outbox or was delivered.
	Force bool
	// OnFiles, if set, is told how many files the paths expanded to, once,
	// before any capture starts (for a progress bar).
	OnFiles func(n int)
	// OnResult, if set, is called with each file's result as soon as it is
	// known (from the capture workers, one call at a time), so a card can
	// show at once.
	OnResult func(CaptureResult)
}

// CaptureResult is what became of one file.
type CaptureResult struct {
	Path string
	// Entry is the new entry, safe on disk; nil on error or duplicate.
	Entry *Entry
	// Err says, for a person, why the file was not captured.
	Err error
	// Duplicate is set when the same original was already in the outbox
	// or delivered; DuplicateOf is that earlier entry's id. It is not an
	// error: nothing was lost.
	Duplicate   bool
	DuplicateOf string
}

// Capture makes each photo in paths safe in the outbox. Folders are walked
// recursively, skipping hidden files and folders (names starting with a
// dot, like .DS_Store); every other regular file is attempted, so a file
// Spark cannot read gets its own clear message. Each file is its own
// result, in the order the paths expand to; one bad file never stops the
// rest. Capture returns when every file is done.
func (o *Outbox) Capture(ctx context.Context, paths []string, opts CaptureOptions) []CaptureResult {
	files, results := expand(paths)
	if opts.OnFiles != nil {
		opts.OnFiles(len(files))
	}
	var mu sync.Mutex // serializes OnResult
	report := func(i int, r CaptureResult) {
		results[i] = r
		if opts.OnResult != nil {
			mu.Lock()
			opts.OnResult(r)
			mu.Unlock()
		}
	}
	next := make(chan int)
	var wg sync.WaitGroup
	for range o.opts.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				f := files[i]
				if f.err != nil {
					report(i, CaptureResult{Path: f.path, Err: f.err})
					continue
				}
				report(i, o.captureOne(ctx, f.path, opts.Force))
			}
		}()
	}
	for i := range files {
		next <- i
	}
	close(next)
	wg.Wait()
	return results
}

type walked struct {
	path string
	err  error
}

// expand turns the given paths into the list of files to capture.
func expand(paths []string) ([]walked, []CaptureResult) {
	var files []walked
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			files = append(files, walked{p, readErr(p, err)})
			continue
		}
		if !st.IsDir() {
			files = append(files, walked{path: p})
			continue
		}
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				files = append(files, walked{path, readErr(path, err)})
				if d != nil && d.IsDir() && path != p {
					return fs.SkipDir
				}
				return nil
			}
			if path != p && strings.HasPrefix(d.Name(), ".") {
				if d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			if d.IsDir() {
				return nil
			}
			if d.Type()&fs.ModeSymlink != 0 {
				// Follow links to files, not to folders (no cycles).
				st, err := os.Stat(path)
				if err != nil {
					files = append(files, walked{path, readErr(path, err)})
					return nil
				}
				if st.IsDir() {
					return nil
				}
			}
			files = append(files, walked{path: path})
			return nil
		})
		if err != nil {
			files = append(files, walked{p, readErr(p, err)})
		}
	}
	return files, make([]CaptureResult, len(files))
}

// readErr words an error opening or reading a source file.
func readErr(path string, err error) error {
	var pe *fs.PathError
	reason := err
	if errors.As(err, &pe) {
		reason = pe.Err
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &pathError{msg: path + ": no such file or folder; check the path (was the card or phone unplugged?)", err: err}
	case errors.Is(err, fs.ErrPermission):
		return &pathError{msg: path + ": permission denied; Spark may not read this file", err: err}
	}
	return &pathError{msg: "cannot read " + path + ": " + reason.Error(), err: err}
}

// pathError rewrites a message that names the staged copy so that it names
// the file the user imported, and keeps the original error for errors.Is.
type pathError struct {
	msg string
	err error
}

func (e *pathError) Error() string { return e.msg }
func (e *pathError) Unwrap() error { return e.err }

// ids are the identifiers minted for one capture, before any network.
type ids struct {
	entry, moment, copy, original, turn string
}

func newIDs() ids {
	return ids{
		entry:    ulid.Make().String(),
		moment:   ulid.Make().String(),
		copy:     ulid.Make().String(),
		original: ulid.Make().String(),
		turn:     ulid.Make().String(),
	}
}

var contentTypes = map[string]string{
	photo.FormatJPEG: "image/jpeg",
	photo.FormatPNG:  "image/png",
	photo.FormatWebP: "image/webp",
	photo.FormatHEIC: "image/heic",
}

// captureOne captures one file; see doc.go for the order of writes.
func (o *Outbox) captureOne(ctx context.Context, src string, force bool) CaptureResult {
	res := CaptureResult{Path: src}
	select {
	case <-o.closed:
		res.Err = ErrClosed
		return res
	default:
	}
	if err := ctx.Err(); err != nil {
		res.Err = fmt.Errorf("%s: not imported: %w", src, err)
		return res
	}
	f, err := os.Open(src)
	if err != nil {
		res.Err = readErr(src, err)
		return res
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		res.Err = readErr(src, err)
		return res
	}
	if !st.Mode().IsRegular() {
		res.Err = fmt.Errorf("%s: not a regular file; import photos or folders of photos", src)
		return res
	}
	// The headers first: an empty, unsupported or damaged file is refused
	// before anything is copied.
	info, err := photo.Probe(f)
	if err != nil {
		res.Err = fmt.Errorf("%s: %w", src, err)
		return res
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		res.Err = readErr(src, err)
		return res
	}

	id := newIDs()
	need := st.Size() + 2<<20 // the original plus room for its small copy
	stage := filepath.Join(o.dir, "staging", id.entry)
	final := o.entryDir(id.entry)
	committed := false
	placed := false
	defer func() {
		if committed {
			return
		}
		os.RemoveAll(stage)
		if placed {
			os.RemoveAll(final)
		}
	}()
	if err := os.Mkdir(stage, 0o700); err != nil {
		res.Err = fmt.Errorf("%s: %w", src, diskFull(err, need))
		return res
	}

	// The original, byte for byte, hashed on the way.
	stagedOriginal := filepath.Join(stage, originalName)
	size, sum, err := o.writeHashed(stagedOriginal, func(w io.Writer) error {
		_, err := io.Copy(w, f)
		if err != nil && !isWriteErr(err) {
			return readErr(src, err)
		}
		return err
	})
	if err != nil {
		res.Err = fmt.Errorf("%s: copy the original: %w", src, diskFull(err, need))
		return res
	}
	if size != st.Size() {
		res.Err = fmt.Errorf("%s: the file changed size while it was copied (%d, then %d bytes); import it again once it is complete", src, st.Size(), size)
		return res
	}

	if !force {
		if dup, err := o.duplicateOf(ctx, o.db, sum); err != nil {
			res.Err = fmt.Errorf("%s: %w", src, err)
			return res
		} else if dup != "" {
			res.Duplicate, res.DuplicateOf = true, dup
			return res
		}
	}

	// The small copy, made from the staged original (the source may vanish).
	var out photo.Result
	copySize, copySum, err := o.writeHashed(filepath.Join(stage, copyName), func(w io.Writer) error {
		var err error
		out, err = photo.SmallCopy(ctx, stagedOriginal, w, photo.Options{})
		return err
	})
	if err != nil {
		if isDiskFull(err) {
			res.Err = fmt.Errorf("%s: make the small copy: %w", src, diskFull(err, need))
		} else {
			res.Err = &pathError{msg: strings.ReplaceAll(err.Error(), stagedOriginal, src), err: err}
		}
		return res
	}

	// Make the files durable, then place them, then commit the row.
	if err := atomicfile.SyncDir(stage); err != nil {
		res.Err = fmt.Errorf("%s: %w", src, diskFull(err, need))
		return res
	}
	if err := os.Rename(stage, final); err != nil {
		res.Err = fmt.Errorf("%s: place the files in the outbox: %w", src, diskFull(err, need))
		return res
	}
	placed = true
	if err := atomicfile.SyncDir(filepath.Dir(final)); err != nil {
		res.Err = fmt.Errorf("%s: %w", src, diskFull(err, need))
		return res
	}

	// When the photo was taken, from its EXIF date; without one, the
	// file's modification time, which a camera or phone usually leaves
	// near it (a copy made later may not).
	takenAt := st.ModTime().UTC().Truncate(time.Second)
	if !info.Taken.IsZero() {
		takenAt = info.Taken.UTC().Truncate(time.Second)
	}
	e := &Entry{
		ID: id.entry, MomentID: id.moment, CopyID: id.copy, OriginalID: id.original, TurnRequestID: id.turn,
		Source: src, Name: filepath.Base(src), Format: info.Format, ContentType: contentTypes[info.Format],
		Size: size, SHA256: hex.EncodeToString(sum), CopySize: copySize, CopySHA256: hex.EncodeToString(copySum),
		CopyWidth: out.Width, CopyHeight: out.Height, TakenAt: &takenAt, CapturedAt: o.opts.Now().UTC(),
		State: Pending,
	}
	if e.ContentType == "" {
		e.ContentType = "application/octet-stream"
	}
	dup, err := o.insertEntry(ctx, e, force)
	if err != nil {
		res.Err = fmt.Errorf("%s: record it in the outbox: %w", src, diskFull(err, need))
		return res
	}
	if dup != "" {
		res.Duplicate, res.DuplicateOf = true, dup
		return res
	}
	committed = true
	for _, name := range Steps {
		e.Steps = append(e.Steps, StepStatus{Name: name})
	}
	res.Entry = e
	o.events.publish(Event{Kind: EventAdded, EntryID: e.ID, At: e.CapturedAt, Entry: e})
	// Wake the drain, but leave the back-off of waiting entries alone: a
	// big import while the engine is down must not hammer it.
	o.wake()
	return res
}

// writeErr marks an error from writing into the outbox (as opposed to
// reading the source).
type writeErr struct{ err error }

func (e *writeErr) Error() string { return e.err.Error() }
func (e *writeErr) Unwrap() error { return e.err }

func isWriteErr(err error) bool {
	var we *writeErr
	return errors.As(err, &we)
}

// hashWriter tees writes into a hash and tags write failures.
type hashWriter struct {
	w writeFile
	h hash.Hash
	n int64
}

func (hw *hashWriter) Write(b []byte) (int, error) {
	n, err := hw.w.Write(b)
	hw.h.Write(b[:n])
	hw.n += int64(n)
	if err != nil {
		return n, &writeErr{err}
	}
	return n, nil
}

// writeHashed creates name, lets fill write into it, then fsyncs and
// closes it, returning its size and SHA-256.
func (o *Outbox) writeHashed(name string, fill func(io.Writer) error) (int64, []byte, error) {
	f, err := o.create(name)
	if err != nil {
		return 0, nil, err
	}
	hw := &hashWriter{w: f, h: sha256.New()}
	err = fill(hw)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, nil, err
	}
	return hw.n, hw.h.Sum(nil), nil
}

type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// duplicateOf returns the id of an entry (in the outbox or delivered) with
// the same original, or "".
func (o *Outbox) duplicateOf(ctx context.Context, q querier, sum []byte) (string, error) {
	h := hex.EncodeToString(sum)
	var id string
	err := q.QueryRowContext(ctx, `SELECT id FROM entries WHERE sha256 = ?1
		UNION ALL SELECT entry_id FROM delivered WHERE sha256 = ?1 LIMIT 1`, h).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("look for an earlier import: %w", err)
	}
	return id, nil
}

// insertEntry commits a captured entry in one transaction. Unless force,
// it checks again for a duplicate inside the transaction, since two files
// with the same bytes may be captured at once; it then returns the earlier
// entry's id and inserts nothing.
func (o *Outbox) insertEntry(ctx context.Context, e *Entry, force bool) (string, error) {
	tx, err := o.db.BeginTx(ctx, nil)
	if err != nil {
		return "", err
	}
	defer tx.Rollback()
	if !force {
		sum, _ := hex.DecodeString(e.SHA256)
		dup, err := o.duplicateOf(ctx, tx, sum)
		if err != nil || dup != "" {
			return dup, err
		}
	}
	var takenAt any
	if e.TakenAt != nil {
		takenAt = formatTime(*e.TakenAt)
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO entries (id, moment_id, copy_id, original_id, turn_request_id,
		source, name, format, content_type, size, sha256, copy_size, copy_sha256, copy_width, copy_height,
		taken_at, captured_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
		e.ID, e.MomentID, e.CopyID, e.OriginalID, e.TurnRequestID, e.Source, e.Name, e.Format, e.ContentType,
		e.Size, e.SHA256, e.CopySize, e.CopySHA256, e.CopyWidth, e.CopyHeight, takenAt, formatTime(e.CapturedAt))
	if err != nil {
		return "", err
	}
	return "", tx.Commit()
}
