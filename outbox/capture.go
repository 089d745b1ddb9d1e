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

// captureOne captures one file and reports what became of it: a new
// entry (announced, and the drain woken), a duplicate, or an error.
func (o *Outbox) captureOne(ctx context.Context, src string, force bool) CaptureResult {
	res := CaptureResult{Path: src}
	e, dup, err := o.capture(ctx, src, force)
	switch {
	case err != nil:
		res.Err = err
	case dup != "":
		res.Duplicate, res.DuplicateOf = true, dup
	default:
		res.Entry = e
		o.events.publish(Event{Kind: EventAdded, EntryID: e.ID, At: e.CapturedAt, Entry: e})
		// Wake the drain, but leave the back-off of waiting entries alone: a
		// big import while the engine is down must not hammer it.
		o.wake()
	}
	return res
}

// capture stages src's files, places them in the outbox and commits its
// entry (see doc.go for the order of writes). It returns the new entry, or
// the id of the earlier entry with the same original, or why src was not
// captured, worded for a person.
func (o *Outbox) capture(ctx context.Context, src string, force bool) (*Entry, string, error) {
	select {
	case <-o.closed:
		return nil, "", ErrClosed
	default:
	}
	if err := ctx.Err(); err != nil {
		return nil, "", fmt.Errorf("%s: not imported: %w", src, err)
	}
	f, st, info, err := openPhoto(src)
	if err != nil {
		return nil, "", err
	}
	defer f.Close()

	c := &capturing{o: o, src: src, need: st.Size() + 2<<20, id: newIDs()}
	c.stage = filepath.Join(o.dir, "staging", c.id.entry)
	c.final = o.entryDir(c.id.entry)
	defer c.undo()
	if err := os.Mkdir(c.stage, 0o700); err != nil {
		return nil, "", c.fail("", err)
	}
	original, err := c.stageOriginal(f, st.Size())
	if err != nil {
		return nil, "", err
	}
	if !force {
		if dup, err := o.duplicateOf(ctx, o.db, original.sum); err != nil || dup != "" {
			return nil, dup, c.fail("", err)
		}
	}
	small, out, err := c.stageCopy(ctx)
	if err != nil {
		return nil, "", err
	}
	if err := c.place(); err != nil {
		return nil, "", err
	}
	e := c.entry(st.ModTime(), info, original, small, out)
	dup, err := o.insertEntry(ctx, e, force)
	if err != nil || dup != "" {
		return nil, dup, c.fail("record it in the outbox", err)
	}
	c.committed = true
	return e, "", nil
}

// entry is the capture's entry: its ids, what the photo's headers said,
// and its two files.
func (c *capturing) entry(modTime time.Time, info photo.Info, original, small hashed, out photo.Result) *Entry {
	// When the photo was taken, from its EXIF date; without one, the
	// file's modification time, which a camera or phone usually leaves
	// near it (a copy made later may not).
	takenAt := modTime.UTC().Truncate(time.Second)
	if !info.Taken.IsZero() {
		takenAt = info.Taken.UTC().Truncate(time.Second)
	}
	e := &Entry{
		ID: c.id.entry, MomentID: c.id.moment, CopyID: c.id.copy, OriginalID: c.id.original, TurnRequestID: c.id.turn,
		Source: c.src, Name: filepath.Base(c.src), Format: info.Format, ContentType: contentTypes[info.Format],
		Size: original.size, SHA256: hex.EncodeToString(original.sum),
		CopySize: small.size, CopySHA256: hex.EncodeToString(small.sum), CopyWidth: out.Width, CopyHeight: out.Height,
		TakenAt: &takenAt, CapturedAt: c.o.opts.Now().UTC(), State: Pending,
	}
	if e.ContentType == "" {
		e.ContentType = "application/octet-stream"
	}
	for _, name := range Steps {
		e.Steps = append(e.Steps, StepStatus{Name: name})
	}
	return e
}

// openPhoto opens src and reads its headers, so that an empty,
// unsupported or damaged file is refused before anything is copied; the
// file is returned at its start.
func openPhoto(src string) (*os.File, fs.FileInfo, photo.Info, error) {
	f, err := os.Open(src)
	if err != nil {
		return nil, nil, photo.Info{}, readErr(src, err)
	}
	fail := func(err error) (*os.File, fs.FileInfo, photo.Info, error) {
		f.Close()
		return nil, nil, photo.Info{}, err
	}
	st, err := f.Stat()
	if err != nil {
		return fail(readErr(src, err))
	}
	if !st.Mode().IsRegular() {
		return fail(fmt.Errorf("%s: not a regular file; import photos or folders of photos", src))
	}
	info, err := photo.Probe(f)
	if err != nil {
		return fail(fmt.Errorf("%s: %w", src, err))
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return fail(readErr(src, err))
	}
	return f, st, info, nil
}

// capturing is one capture on its way into the outbox: its files are
// written in stage, then placed at final.
type capturing struct {
	o    *Outbox
	src  string
	need int64 // the space it may take: the original and room for its small copy
	id   ids

	stage, final      string
	placed, committed bool
}

// fail words a failed step of the capture for a person, naming the file
// imported (step "" when err says it all) and, for a full disk, the space
// the capture needed. A nil err stays nil.
func (c *capturing) fail(step string, err error) error {
	if err == nil {
		return nil
	}
	err = diskFull(err, c.need)
	if step == "" {
		return fmt.Errorf("%s: %w", c.src, err)
	}
	return fmt.Errorf("%s: %s: %w", c.src, step, err)
}

// undo removes what a capture that was not committed wrote.
func (c *capturing) undo() {
	if c.committed {
		return
	}
	os.RemoveAll(c.stage)
	if c.placed {
		os.RemoveAll(c.final)
	}
}

// stageOriginal copies the original from f, byte for byte, hashed on the
// way, and checks that it is the size the file had when opened.
func (c *capturing) stageOriginal(f io.Reader, want int64) (hashed, error) {
	h, err := c.o.writeHashed(filepath.Join(c.stage, originalName), func(w io.Writer) error {
		_, err := io.Copy(w, f)
		if err != nil && !isWriteErr(err) {
			return readErr(c.src, err)
		}
		return err
	})
	if err != nil {
		return hashed{}, c.fail("copy the original", err)
	}
	if h.size != want {
		return hashed{}, fmt.Errorf("%s: the file changed size while it was copied (%d, then %d bytes); import it again once it is complete", c.src, want, h.size)
	}
	return h, nil
}

// stageCopy makes the small copy from the staged original (the source may
// vanish).
func (c *capturing) stageCopy(ctx context.Context) (hashed, photo.Result, error) {
	staged := filepath.Join(c.stage, originalName)
	var out photo.Result
	h, err := c.o.writeHashed(filepath.Join(c.stage, copyName), func(w io.Writer) error {
		var err error
		out, err = photo.SmallCopy(ctx, staged, w, photo.Options{})
		return err
	})
	switch {
	case err == nil:
		return h, out, nil
	case isDiskFull(err):
		return hashed{}, out, c.fail("make the small copy", err)
	}
	return hashed{}, out, &pathError{msg: strings.ReplaceAll(err.Error(), staged, c.src), err: err}
}

// place makes the staged files durable, then moves them to their entry's
// folder and makes that durable.
func (c *capturing) place() error {
	if err := atomicfile.SyncDir(c.stage); err != nil {
		return c.fail("", err)
	}
	if err := os.Rename(c.stage, c.final); err != nil {
		return c.fail("place the files in the outbox", err)
	}
	c.placed = true
	return c.fail("", atomicfile.SyncDir(filepath.Dir(c.final)))
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

// hashed is a file written into the outbox: its size and SHA-256.
type hashed struct {
	size int64
	sum  []byte
}

// writeHashed creates name, lets fill write into it, then fsyncs and
// closes it, returning its size and SHA-256.
func (o *Outbox) writeHashed(name string, fill func(io.Writer) error) (hashed, error) {
	f, err := o.create(name)
	if err != nil {
		return hashed{}, err
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
		return hashed{}, err
	}
	return hashed{size: hw.n, sum: hw.h.Sum(nil)}, nil
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
