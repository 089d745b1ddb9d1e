package backup

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/sparkfamily/spark/engine"
	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/media"
	"github.com/sparkfamily/spark/engine/mirror"
	"github.com/sparkfamily/spark/engine/oplog"
	"github.com/sparkfamily/spark/engine/vfs"
	"github.com/sparkfamily/spark/internal/atomicfile"
)

// RestoreOptions tell Restore where to stop; with neither set it restores
// everything in the copy. Only whole groups are restored.
type RestoreOptions struct {
	// Seq, if set, stops after the group that holds op Seq.
	Seq uint64
	// At, if set, stops before the first group logged after At.
	At time.Time
	// Out hears fsck's findings; nil discards them.
	Out io.Writer
	// Logger hears the rebuild's progress; nil is slog.Default().
	Logger *slog.Logger
	// Key is the copy's key, which an encrypted copy needs (ErrNeedKey
	// without it, ErrWrongKey with another). The restored folder keeps
	// it as its KeyFile, so that it ships on with it.
	Key *Key
	// SampleMedia, if set, picks the photos fetched (a drill of a large
	// copy fetches a sample): a photo it refuses is not fetched, and fsck
	// is told its blob is absent on purpose.
	SampleMedia func(sha256hex string, size int64) bool
}

// Restored tells what Restore wrote.
type Restored struct {
	LastSeq    uint64
	At         time.Time // when the last op restored was logged
	Media      int
	MediaBytes int64
	LogBytes   int64
}

// ErrNotEmpty is returned by Restore into a folder that holds anything.
var ErrNotEmpty = errors.New("backup: restore into an empty folder only")

// ErrFsck is returned by Restore when fsck of the restored folder did not
// come out clean (its findings went to RestoreOptions.Out).
var ErrFsck = errors.New("backup: fsck of the restored folder found problems")

// Restore restores the copy in t into the empty folder dir: it fetches the
// segments in order, checks every record (checksum, seq going up by one),
// stops at the point asked (a whole group), fetches the photos the
// restored ops name while it reads on and checks each one's SHA-256,
// writes the log and the media as the engine lays them out, folds the
// log into the mirror while the last photos come, and runs fsck. It
// holds a segment's worth of log and a few photos' buffers in memory at
// a time.
//
// A damaged object stops it with an error that names the object; dir is
// then left as far as it got, to be emptied before trying again. Until
// the restore is durable the log in dir is named restoringLog, not
// engine.LogFile: a restore cut short, by a failure or a crash, leaves
// no folder an engine would open as restored.
func Restore(ctx context.Context, t Target, dir string, opts RestoreOptions) (*Restored, error) {
	if opts.Out == nil {
		opts.Out = io.Discard
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if err := emptyDir(dir); err != nil {
		return nil, err
	}
	m, err := readManifest(ctx, t)
	if err != nil {
		return nil, err
	}
	var seal *sealer
	if m.encrypted() {
		if opts.Key == nil {
			return nil, ErrNeedKey
		}
		if opts.Key.Recipient() != m.Recipient {
			return nil, fmt.Errorf("%w (it was made for %s)", ErrWrongKey, m.Recipient)
		}
		seal = newSealer(opts.Key)
	}
	// Each photo is synced beside the fetches and each of their folders
	// once at the end (deferredSyncs); the log is written under
	// restoringLog and takes its name only once they all are durable.
	dirs := &deferredSyncs{FS: vfs.OS}
	defer dirs.wait()
	store, err := media.OpenWith(filepath.Join(dir, engine.MediaDir), media.Options{Logger: opts.Logger, FS: dirs})
	if err != nil {
		return nil, fmt.Errorf("backup: %w", err)
	}
	logPath := filepath.Join(dir, restoringLog)
	lf, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("backup: %w", err)
	}
	defer lf.Close()
	w := bufio.NewWriterSize(lf, 256<<10)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	r := &restorer{t: t, seal: seal, store: store, w: w, opts: opts, res: &Restored{}, cancel: cancel}
	r.startFetches(ctx)
	err = r.segments(ctx)
	if err == nil {
		err = w.Flush()
	}
	// The log is whole: it is folded into the mirror while the last
	// photos still come. The mirror, like the log, takes its name only
	// once every photo is durable.
	mirrorPath := filepath.Join(dir, restoringMirror)
	var folded chan error
	if err == nil && r.res.LastSeq > 0 {
		folded = make(chan error, 1)
		go func() { folded <- engine.FoldLogInto(ctx, logPath, mirrorPath, opts.Logger) }()
	} else {
		cancel() // no photo more is needed
	}
	if ferr := r.waitFetches(); ferr != nil && (err == nil || errors.Is(err, context.Canceled)) {
		err = ferr // the first photo that failed, not the cancel it caused
	}
	if folded != nil {
		if foldErr := <-folded; err == nil && foldErr != nil {
			err = fmt.Errorf("backup: %w", foldErr)
		}
	}
	if err != nil {
		return nil, err
	}
	if r.res.LastSeq == 0 {
		return nil, fmt.Errorf("backup: the copy in %s holds no op at or before the point asked", t)
	}
	for _, m := range r.missing {
		if !r.purged[m.MomentID] {
			return nil, fmt.Errorf("backup: fetch the %s %s of moment %s: %s is not in %s: %w; if the moment was removed for good (purged) before the copy was made, restore to a point after that",
				m.Role, m.ID, m.MomentID, mediaName(m.SHA256), t, ErrNotFound)
		}
	}
	if err := lf.Sync(); err != nil {
		return nil, fmt.Errorf("backup: sync %s: %w", logPath, err)
	}
	if err := lf.Close(); err != nil {
		return nil, fmt.Errorf("backup: %w", err)
	}
	if err := dirs.wait(); err != nil {
		return nil, fmt.Errorf("backup: make the photos durable: %w", err)
	}
	if err := dirs.syncAll(); err != nil {
		return nil, fmt.Errorf("backup: make the photos' folders durable: %w", err)
	}
	if opts.Key != nil {
		if err := writeKey(dir, opts.Key); err != nil {
			return nil, err
		}
	}
	// Only now, every photo, the log and the mirror durable, are the
	// mirror and then the log given their names, and the folder synced:
	// before this it holds no log, and cannot be taken for a restored
	// folder.
	if err := atomicfile.Rename(mirrorPath, filepath.Join(dir, engine.MirrorFile)); err != nil {
		return nil, fmt.Errorf("backup: %w", err)
	}
	if err := atomicfile.Rename(logPath, filepath.Join(dir, engine.LogFile)); err != nil {
		return nil, fmt.Errorf("backup: %w", err)
	}
	if err := atomicfile.SyncDir(dir); err != nil {
		return nil, fmt.Errorf("backup: %w", err)
	}
	// Every photo fetched was hashed as it was written, against the
	// SHA-256 the log gives: fsck checks it is there at its size. The
	// mirror was folded from the whole log just now: fsck checks it holds
	// all of it, and does not fold the log again to compare.
	fo := engine.FsckOptions{Hashed: r.wasFetched, Folded: true}
	if opts.SampleMedia != nil {
		fo.Absent = func(sha string) bool { ok, err := store.Has(sha); return err == nil && !ok }
	}
	ok, err := engine.FsckWith(ctx, dir, opts.Out, fo)
	if err != nil {
		return nil, fmt.Errorf("backup: %w", err)
	}
	if !ok {
		return r.res, ErrFsck
	}
	return r.res, nil
}

// restoringLog is the name of the log while a restore writes it: it
// takes engine.LogFile only once the restore is durable, so that a
// restore cut short leaves no folder that looks restored.
const restoringLog = engine.LogFile + ".restoring"

// restoringMirror is the name of the mirror a restore folds, until it
// takes engine.MirrorFile just before the log takes its name.
const restoringMirror = engine.MirrorFile + ".restoring"

// emptyDir makes dir if missing and refuses it if it holds anything.
func emptyDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	f, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	defer f.Close()
	names, err := f.Readdirnames(1)
	if len(names) > 0 {
		return fmt.Errorf("%w: %s holds %s; restore into a new folder", ErrNotEmpty, dir, names[0])
	}
	if err != nil && err != io.EOF {
		return fmt.Errorf("backup: %w", err)
	}
	return nil
}

type restorer struct {
	t     Target
	seal  *sealer // nil for a plain copy
	store *media.Store
	w     io.Writer
	opts  RestoreOptions
	mu    sync.Mutex // guards res's counts of media and fetched, which transfers add to
	// fetched holds the photos this restore wrote, each hashed as it was
	fetched map[string]bool
	res     *Restored
	// missing is the photos the copy lacks (guarded by mu); the restore
	// fails unless the ops it restores purge each one's moment (purged):
	// removed for good before a pass could ship it (purged.go).
	missing     []mirror.MediaPut
	purged      map[string]bool
	groupPurged []string
	// the group being read: its bytes and photos, kept once whole and
	// wanted
	group []byte
	media []mirror.MediaPut
	// the whole groups kept, written once their photos are fetched: the
	// photos of a segment are fetched transfers at a time
	kept     []byte
	keptMed  []mirror.MediaPut
	keptLast uint64
	keptAt   time.Time
	done     bool

	// the fetches: transfers goroutines take the photos of the kept
	// groups from next while the segments are read; seen holds every
	// photo handed to them, one named twice fetched once.
	next     chan mirror.MediaPut
	seen     map[string]bool
	fetchers sync.WaitGroup
	cancel   context.CancelFunc
	first    error // the first fetch that failed (guarded by mu)
}

// transfers is how many photos a pass ships, or a restore fetches, at
// once: a store answers several requests at a time, and one photo's
// download (or encryption and upload), hash and fsync overlap another's.
const transfers = 4

// keepMax bounds the log bytes a restore keeps before it fetches their
// photos and writes them: a segment's worth.
const keepMax = DefaultSegmentBytes

// segments reads the target's segments in order until the point asked.
func (r *restorer) segments(ctx context.Context) error {
	var prev uint64
	err := r.t.List(ctx, logPrefix, func(name string, _ int64) error {
		if r.done {
			return nil
		}
		first, last, ok := parseSeg(name)
		if !ok {
			return nil // not a segment: never written by Spark
		}
		if first != prev+1 {
			return fmt.Errorf("backup: the copy in %s misses ops %d to %d: %s follows seq %d", r.t, prev+1, first-1, name, prev)
		}
		if err := r.segment(ctx, name, first, last); err != nil {
			return err
		}
		prev = last
		return nil
	})
	if err != nil {
		return err
	}
	return nil
}

// segment restores the segment name, of the records first to last.
func (r *restorer) segment(ctx context.Context, name string, first, last uint64) error {
	rc, err := r.t.Get(ctx, name)
	if err != nil {
		return fmt.Errorf("backup: fetch %s: %w", name, err)
	}
	defer rc.Close()
	body, err := r.open(rc, name)
	if err != nil {
		return err
	}
	rd := oplog.NewReader(body, name, first-1)
	more := false
	for !r.done {
		rec, m, raw, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("backup: %s in %s is damaged: %w", name, r.t, err)
		}
		more = m
		if err := r.record(ctx, rec, more, raw); err != nil {
			return err
		}
	}
	if !r.done && (rd.LastSeq() != last || more) {
		return fmt.Errorf("backup: %s in %s is damaged: it ends at seq %d (in the middle of a group: %v), its name says %d", name, r.t, rd.LastSeq(), more, last)
	}
	return r.flush(ctx)
}

// record takes one record: gathers its group, and writes the group once
// whole if it is wanted.
func (r *restorer) record(ctx context.Context, rec oplog.Record, more bool, raw []byte) error {
	if len(r.group) == 0 {
		if r.opts.Seq != 0 && rec.Seq > r.opts.Seq {
			r.done = true
			return nil
		}
	}
	r.group = append(r.group, raw...)
	if rec.Op == api.OpMediaPut {
		var m mirror.MediaPut
		if err := json.Unmarshal(rec.Data, &m); err != nil || !api.ValidSHA256(m.SHA256) {
			return fmt.Errorf("backup: the media.put op at seq %d names no SHA-256", rec.Seq)
		}
		r.media = append(r.media, m)
	}
	if id, ok := purgeOf(rec); ok {
		r.groupPurged = append(r.groupPurged, id)
	}
	if more {
		return nil
	}
	if !r.opts.At.IsZero() && rec.At.After(r.opts.At) {
		r.done = true
		return nil
	}
	r.kept = append(r.kept, r.group...)
	r.keptMed = append(r.keptMed, r.media...)
	for _, id := range r.groupPurged {
		if r.purged == nil {
			r.purged = map[string]bool{}
		}
		r.purged[id] = true
	}
	r.groupPurged = r.groupPurged[:0]
	r.keptLast, r.keptAt = rec.Seq, rec.At
	r.group, r.media = r.group[:0], r.media[:0]
	if len(r.kept) >= keepMax {
		return r.flush(ctx)
	}
	return nil
}

// startFetches starts the goroutines that fetch the photos flush hands
// them, transfers at a time, until waitFetches.
func (r *restorer) startFetches(ctx context.Context) {
	r.next = make(chan mirror.MediaPut)
	r.seen = map[string]bool{}
	for range transfers {
		r.fetchers.Go(func() {
			for m := range r.next {
				if err := r.fetch(ctx, m); err != nil {
					r.mu.Lock()
					if r.first == nil {
						r.first = err
					}
					r.mu.Unlock()
					r.cancel()
				}
			}
		})
	}
}

// waitFetches waits for every photo handed to the fetches, and gives
// the first that failed. It is called once, after the last flush.
func (r *restorer) waitFetches() error {
	close(r.next)
	r.fetchers.Wait()
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.first
}

// flush writes the kept groups and hands their photos to the fetches,
// which fetch them while the next groups are read. The log is written
// under restoringLog, so it may name a photo still on its way: it takes
// its name only once every photo is fetched and durable (Restore).
func (r *restorer) flush(ctx context.Context) error {
	if len(r.kept) == 0 {
		return nil
	}
	if _, err := r.w.Write(r.kept); err != nil {
		return fmt.Errorf("backup: write the log: %w", err)
	}
	r.res.LogBytes += int64(len(r.kept))
	r.res.LastSeq, r.res.At = r.keptLast, r.keptAt
	for _, m := range r.keptMed {
		if r.seen[m.SHA256] {
			continue
		}
		r.seen[m.SHA256] = true
		select {
		case r.next <- m:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	r.kept, r.keptMed = r.kept[:0], r.keptMed[:0]
	return nil
}

// wasFetched reports whether this restore wrote the photo sha, checking
// its SHA-256 as it did.
func (r *restorer) wasFetched(sha string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.fetched[sha]
}

// fetch puts the photo m names in the store, checking its SHA-256 and size.
func (r *restorer) fetch(ctx context.Context, m mirror.MediaPut) error {
	if ok, err := r.store.Has(m.SHA256); err != nil || ok {
		return err
	}
	if r.opts.SampleMedia != nil && !r.opts.SampleMedia(m.SHA256, m.Size) {
		return nil
	}
	name := mediaName(m.SHA256)
	rc, err := r.t.Get(ctx, name)
	if errors.Is(err, ErrNotFound) {
		r.mu.Lock()
		r.missing = append(r.missing, m)
		r.mu.Unlock()
		return nil
	}
	if err != nil {
		return fmt.Errorf("backup: fetch the %s %s of moment %s: %w", m.Role, m.ID, m.MomentID, err)
	}
	defer rc.Close()
	body, err := r.open(rc, name)
	if err != nil {
		return err
	}
	// No more than the log says the photo holds: a store that sends more
	// is refused at once, not read until the disk is full.
	st, err := r.store.Stage(ctx, body, max(m.Size, 1))
	if errors.Is(err, media.ErrTooLarge) {
		return fmt.Errorf("backup: %s in %s is damaged: it holds more than the %d bytes the log says: %w", name, r.t, m.Size, ErrDamaged)
	}
	if err != nil {
		return fmt.Errorf("backup: fetch %s: %w", name, err)
	}
	defer st.Discard()
	if st.SHA256 != m.SHA256 || st.Size != m.Size {
		return fmt.Errorf("backup: %s in %s is damaged: its %d bytes hash to %s, the log says %d bytes of SHA-256 %s", name, r.t, st.Size, st.SHA256, m.Size, m.SHA256)
	}
	if err := st.Commit(); err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	r.mu.Lock()
	r.res.Media++
	r.res.MediaBytes += st.Size
	if r.fetched == nil {
		r.fetched = map[string]bool{}
	}
	r.fetched[m.SHA256] = true
	r.mu.Unlock()
	return nil
}

// open gives the plain bytes of the object name that rc reads.
func (r *restorer) open(rc io.Reader, name string) (io.Reader, error) {
	if r.seal == nil {
		return rc, nil
	}
	return r.seal.open(rc, r.t, name)
}
