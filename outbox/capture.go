package outbox

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/sparkfamily/spark/outbox/photo"
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
//
// The workers stage files (copy, small copy, fsyncs) while one committer
// places and records the captures they finish, several in one directory
// sync and one transaction (capture_commit.go); a capture is reported only
// once its batch is durable.
func (o *Outbox) Capture(ctx context.Context, paths []string, opts CaptureOptions) []CaptureResult {
	files, results := expand(paths)
	if opts.OnFiles != nil {
		opts.OnFiles(len(files))
	}
	rep := &reporter{results: results, onResult: opts.OnResult}
	cm := o.startCommitter(ctx, opts.Force, rep)
	next := make(chan int)
	var wg sync.WaitGroup
	for range o.opts.Workers {
		wg.Go(func() {
			for i := range next {
				o.captureOne(ctx, i, files[i], opts.Force, cm, rep)
			}
		})
	}
	for i := range files {
		next <- i
	}
	close(next)
	wg.Wait()
	cm.finish()
	return results
}

// reporter records each file's result and tells OnResult, one call at a
// time.
type reporter struct {
	mu       sync.Mutex
	results  []CaptureResult
	onResult func(CaptureResult)
}

func (r *reporter) report(i int, res CaptureResult) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.results[i] = res
	if r.onResult != nil {
		r.onResult(res)
	}
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
		turn:     secretID(), // see NewNote
	}
}

var contentTypes = map[string]string{
	photo.FormatJPEG: "image/jpeg",
	photo.FormatPNG:  "image/png",
	photo.FormatWebP: "image/webp",
	photo.FormatHEIC: "image/heic",
}

// captureOne stages file i and hands it to the committer, which reports
// it once it is durable; a file that was refused, or is a duplicate, is
// reported at once.
func (o *Outbox) captureOne(ctx context.Context, i int, f walked, force bool, cm *committer, rep *reporter) {
	if f.err != nil {
		rep.report(i, CaptureResult{Path: f.path, Err: f.err})
		return
	}
	c, dup, err := o.stage(ctx, f.path, force)
	switch {
	case err != nil:
		rep.report(i, CaptureResult{Path: f.path, Err: err})
	case dup != "":
		rep.report(i, CaptureResult{Path: f.path, Duplicate: true, DuplicateOf: dup})
	default:
		cm.add(i, c)
	}
}

// stage writes src's files into staging/<id>, and starts making them and
// the folder durable (see doc.go for the order of writes): the original's
// fsync runs while the small copy is made, and the rest while the worker
// goes on to its next file; the committer waits for them (c.synced), then
// places the files and records the entry. stage returns the staged capture, or the id of the
// earlier entry with the same original, or why src was not captured,
// worded for a person; in those two cases nothing is left behind.
func (o *Outbox) stage(ctx context.Context, src string, force bool) (_ *capturing, dup string, err error) {
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
	defer func() {
		if err != nil || dup != "" {
			c.undo()
		}
	}()
	if err := os.Mkdir(c.stage, 0o700); err != nil {
		return nil, "", c.fail("", err)
	}
	original, of, err := c.copyOriginal(f, st.Size())
	if err != nil {
		return nil, "", err
	}
	if !force {
		if dup, err = o.duplicateOf(ctx, o.db, original.sum); err != nil || dup != "" {
			of.Close()
			return nil, dup, c.fail("", err)
		}
	}
	small, out, err := c.stageCopyWhile(ctx, of)
	if err != nil {
		return nil, "", err
	}
	c.e = c.entry(st.ModTime(), info, original, small, out)
	return c, "", nil
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

	e      *Entry     // the entry, once its files are staged
	synced chan error // then says whether they and staging/<id> were synced
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

// copyOriginal copies the original from f, byte for byte, hashed on the
// way, and checks that it is the size the file had when opened. The
// staged file is returned open and not yet synced (see stageCopyWhile).
func (c *capturing) copyOriginal(f io.Reader, want int64) (hashed, writeFile, error) {
	h, w, err := c.o.fillHashed(filepath.Join(c.stage, originalName), func(w io.Writer) error {
		_, err := io.Copy(w, f)
		if err != nil && !isWriteErr(err) {
			return readErr(c.src, err)
		}
		return err
	})
	if err != nil {
		return hashed{}, nil, c.fail("copy the original", err)
	}
	if h.size != want {
		w.Close()
		return hashed{}, nil, fmt.Errorf("%s: the file changed size while it was copied (%d, then %d bytes); import it again once it is complete", c.src, want, h.size)
	}
	return h, w, nil
}

// stageCopyWhile makes the small copy while the staged original, still
// open, is synced and closed in another goroutine. On success the small
// copy's fsync and the staging folder's follow in the background, and
// c.synced says how they went; on error it returns once the original is
// closed.
func (c *capturing) stageCopyWhile(ctx context.Context, original writeFile) (hashed, photo.Result, error) {
	originalSynced := make(chan error, 1)
	go func() { originalSynced <- syncClose(original) }()
	small, f, out, err := c.stageCopy(ctx)
	if err != nil {
		<-originalSynced
		return hashed{}, out, err
	}
	c.synced = make(chan error, 1)
	go func() { c.synced <- c.syncStaged(f, originalSynced) }()
	return small, out, nil
}

// syncStaged fsyncs and closes the small copy, waits for the original's
// fsync and then syncs the staging folder, so that both files and their
// names are durable.
func (c *capturing) syncStaged(small writeFile, originalSynced <-chan error) error {
	err := syncClose(small)
	if oerr := <-originalSynced; oerr != nil {
		return c.fail("copy the original", oerr)
	}
	if err != nil {
		return c.fail("make the small copy", err)
	}
	return c.fail("", syncDir(c.stage))
}

// stageCopy makes the small copy from the staged original (the source may
// vanish), which the page cache holds whether or not its fsync is done,
// and returns it open and not yet synced.
func (c *capturing) stageCopy(ctx context.Context) (hashed, writeFile, photo.Result, error) {
	staged := filepath.Join(c.stage, originalName)
	var out photo.Result
	h, f, err := c.o.fillHashed(filepath.Join(c.stage, copyName), func(w io.Writer) error {
		var err error
		out, err = photo.SmallCopy(ctx, staged, w, photo.Options{})
		return err
	})
	switch {
	case err == nil:
		return h, f, out, nil
	case isDiskFull(err):
		return hashed{}, nil, out, c.fail("make the small copy", err)
	}
	return hashed{}, nil, out, &pathError{msg: strings.ReplaceAll(err.Error(), staged, c.src), err: err}
}
