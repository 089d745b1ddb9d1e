package oplog

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sparkfamily/spark/engine/vfs"
)

// Options configure a Log.
type Options struct {
	Logger *slog.Logger
	// Stage, if set, folds each batch (the engine folds it into the SQLite
	// mirror, one transaction), overlapping the batch's fsync rather than
	// following it. The single committer goroutine calls it, in seq order,
	// with each batch right after writing it, while the fsync runs on
	// another goroutine; it prepares the fold without making any of it
	// visible (an open SQLite transaction) and must not change the records,
	// nor keep the batch once its Staged is committed or aborted (or once
	// Stage has failed): the log reuses it.
	// Once the fsync has succeeded the committer calls the Staged's Commit,
	// and only then answers the writers; if the fsync failed it calls Abort
	// instead. If Stage or Commit fails, the writers of the batch get its
	// error and the log refuses every later Append (the mirror would miss
	// ops): the engine must be reopened, which folds the missing ops from
	// the log. Without Stage the log only writes and fsyncs.
	Stage func(batch []Record) (Staged, error)
	// Durable, if set, is told the seq of the last record of each batch
	// whose writers are answered before its fold (AppendDurable), once it
	// is fsync'ed and before any of them is answered: the mirror's reads
	// then wait for the fold to reach it. It is called from the committer
	// goroutine.
	Durable func(last uint64)
	// OnBatch, if set, is told each fsync batch's size and the time the
	// fsync took (for metrics). It is called from the committer goroutine.
	OnBatch func(records int, fsync time.Duration)
	// Now gives the time stamped on records that come without one; it
	// defaults to time.Now.
	Now func() time.Time
	// FS is the file system the log is read and written through; nil is
	// the operating system's (vfs.OS).
	FS vfs.FS
	// ReadOnly opens the file for reading only, for fsck and rebuild: it
	// is never created or changed, a write cut short at its end is left in
	// place (and reported by Cut), and Append returns ErrReadOnly. It can
	// run beside the engine that writes the log: it sees the log as it was
	// when opened.
	ReadOnly bool
	// KeepThrough is a seq through which ops are known acknowledged: Open
	// refuses to cut any of them, whatever the file holds. The engine
	// passes the mirror's last folded seq. That is a floor, not the
	// highest answered seq: an AppendDurable writer is answered at its
	// fsync, before the fold, so the last ops answered may lie above it.
	// Those are protected by the records themselves: Open cuts only what
	// a write cut short leaves, and a record written whole (even one whose
	// length word was damaged since) is never taken for that; see doc.go,
	// "Recovery".
	KeepThrough uint64
}

// Staged is a fold prepared by Options.Stage, not yet visible.
type Staged interface {
	// Commit makes the fold visible; it is called only after the batch's
	// fsync succeeded.
	Commit() error
	// Abort drops the fold; it is called when the batch's fsync failed.
	Abort()
}

// maxBatchBytes bounds one batch by an estimate of its size: the gather
// loop counts recordEstimate bytes a record, whatever the record's real
// size, and stops taking Appends once the estimate reaches it (a batch
// always takes at least one whole Append). It also caps the encoding buffer
// the committer keeps between batches: one grown past it by a large batch
// is let go once that batch is written.
const maxBatchBytes = 8 << 20

// recordEstimate is what the gather loop counts for each record.
const recordEstimate = 256

// foldQueue is how many batches answered at their fsync may wait for their
// fold; the committer waits when that many do (the fold keeps up, or
// writers slow down to its pace).
const foldQueue = 8

// foldLinger is how long the folder lets a batch answered at its fsync
// wait for the next ones before it folds, unless foldEnough records wait,
// a reader waits for the fold (FoldNow) or an Append does: each fold is
// one mirror transaction, whose fixed cost (the commit, the search index's
// flush) a larger one shares among more ops. Nobody waits for it meanwhile.
const (
	foldLinger = 20 * time.Millisecond
	foldEnough = 512
)

// maxFoldRecords bounds how many records the folder takes into one fold
// when several batches wait for it; maxKeptFold bounds the buffer of
// records it keeps between folds.
const (
	maxFoldRecords = 16384
	maxKeptFold    = 2 * foldEnough
)

// markEvery is how many records apart the sparse index's marks are.
const markEvery = 4096

// Log is an open op log. Its methods are safe for concurrent use.
type Log struct {
	path   string
	fs     vfs.FS
	f      vfs.File
	cut    *Cut
	opts   Options
	logger *slog.Logger

	reqs      chan *request
	quit      chan struct{}
	done      chan struct{} // closed when the committer has stopped
	closeOnce sync.Once
	closeErr  error

	// failed is set by the committer when a write, fsync or fold fails;
	// every later Append gets it. Only the committer touches it.
	failed error
	buf    []byte     // encoding buffer, committer only
	synced chan error // the outcome of a batch's fsync run beside Stage

	// folds carries the batches answered at their fsync (AppendDurable)
	// to the folder goroutine, which folds them behind the log, in seq
	// order; folding counts those not yet folded, and foldErr is the
	// first fold that failed (the log then refuses every later Append).
	folds    chan []Record
	folding  sync.WaitGroup
	inFold   atomic.Int64 // batches handed to the folder and not yet folded
	foldErr  atomic.Pointer[error]
	foldDone chan struct{} // closed when the folder has stopped
	foldKick chan struct{} // FoldNow: fold what waits without lingering

	mu      sync.Mutex
	closed  bool
	end     int64  // size of the committed part of the file
	lastSeq uint64 // seq of the last committed record
	marks   []mark // sparse index: every markEvery-th record
}

// mark is an entry of the sparse index: the record with seq starts at off.
type mark struct {
	seq uint64
	off int64
}

type request struct {
	ctx  context.Context
	recs []Record
	res  chan result
	// durable: answer once fsync'ed, before the fold (AppendDurable).
	durable bool
}

type result struct {
	recs []Record
	err  error
}

// Open opens the log file at path, creating it if needed (unless
// ReadOnly), and checks every record. What a write cut short left at the
// end of the file (see scanFile) is saved beside the log as
// "<path>.cut-<offset>" and then cut off, with a logged warning, unless it
// holds a seq up to Options.KeepThrough; any other bad record makes Open
// fail with a *CorruptError naming the file and offset, and nothing is
// changed.
func Open(path string, opts Options) (*Log, error) {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	fsys := vfs.Default(opts.FS)
	var f vfs.File
	var err error
	if opts.ReadOnly {
		if f, err = fsys.OpenFile(path, os.O_RDONLY, 0); err != nil {
			return nil, fmt.Errorf("oplog: open: %w", err)
		}
	} else {
		_, statErr := fsys.Stat(path)
		if f, err = fsys.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600); err != nil {
			return nil, fmt.Errorf("oplog: open: %w", err)
		}
		if errors.Is(statErr, os.ErrNotExist) {
			// Make the new file's directory entry durable.
			if err := fsys.SyncDir(filepath.Dir(path)); err != nil {
				f.Close()
				return nil, fmt.Errorf("oplog: open %s: %w", path, err)
			}
		}
	}
	l := &Log{
		path:   path,
		fs:     fsys,
		f:      f,
		opts:   opts,
		logger: opts.Logger,
		reqs:   make(chan *request),
		quit:   make(chan struct{}),
		done:   make(chan struct{}),
		synced: make(chan error, 1),
	}
	if err := l.recover(); err != nil {
		f.Close()
		return nil, err
	}
	if opts.ReadOnly {
		close(l.done)
	} else {
		if opts.Stage != nil {
			l.folds = make(chan []Record, foldQueue)
			l.foldDone = make(chan struct{})
			l.foldKick = make(chan struct{}, 1)
			go l.foldLoop()
		}
		go l.commitLoop()
	}
	return l, nil
}

// Cut describes the bytes a write cut short left at the end of the log
// file, past its last whole group of records: a crash in the middle of an
// append. No writer was told those records were stored (a writer is
// answered only after its fsync), and its client sends them again.
type Cut struct {
	Offset int64  // where the bytes start: the end of the log as opened
	Bytes  int64  // how many
	Seq    uint64 // the seq the first record there would have had
	Reason string // what was wrong with them
	// SavedTo is the file the bytes were copied to before they were cut;
	// empty for a read-only log, which leaves them in place.
	SavedTo string
}

// Cut returns what Open found past the log's last whole group (and, unless
// read-only, saved aside and cut), or nil when the file ended cleanly.
func (l *Log) Cut() *Cut { return l.cut }

// recover reads the whole file, builds the sparse index and saves aside
// and cuts a write cut short at the end.
func (l *Log) recover() error {
	fi, err := l.f.Stat()
	if err != nil {
		return fmt.Errorf("oplog: open %s: %w", l.path, err)
	}
	size := fi.Size()
	st, err := scanFile(context.Background(), l.path, l.f, size)
	if err != nil {
		return err
	}
	l.marks, l.lastSeq, l.end = st.marks, st.lastSeq, st.end
	if st.tail == nil {
		return nil
	}
	c := &Cut{Offset: st.end, Bytes: size - st.end, Seq: st.lastSeq + 1, Reason: st.tail.Reason}
	if keep := l.opts.KeepThrough; keep >= c.Seq {
		return &CorruptError{Path: l.path, Offset: c.Offset, Reason: fmt.Sprintf(
			"%s; this looks like a write cut short, but the ops up to seq %d were acknowledged (the mirror has folded them) and the log's whole records end at seq %d, so acknowledged ops are damaged, not merely unfinished",
			c.Reason, keep, st.lastSeq)}
	}
	l.cut = c
	if l.opts.ReadOnly {
		return nil
	}
	if c.SavedTo, err = l.saveTail(c.Offset, c.Bytes); err != nil {
		return fmt.Errorf("oplog: open %s: save the %d bytes cut short at offset %d before cutting them: %w", l.path, c.Bytes, c.Offset, err)
	}
	if err := l.f.Truncate(c.Offset); err != nil {
		return fmt.Errorf("oplog: open %s: cut at offset %d: %w", l.path, c.Offset, err)
	}
	if err := l.f.Sync(); err != nil {
		return fmt.Errorf("oplog: open %s: sync after cutting at offset %d: %w", l.path, c.Offset, err)
	}
	l.logger.Warn("oplog: cut off a write cut short by a crash; no writer was told it was stored, and its client sends it again",
		"path", l.path, "offset", c.Offset, "bytes", c.Bytes, "seq", c.Seq, "reason", c.Reason, "saved_to", c.SavedTo)
	return nil
}

// saveTail copies the n bytes at off to a new file beside the log,
// "<log>.cut-<off>" (with "-2", "-3"... if taken), and makes it durable.
func (l *Log) saveTail(off, n int64) (string, error) {
	base := fmt.Sprintf("%s.cut-%d", l.path, off)
	name := base
	var out vfs.File
	for i := 2; ; i++ {
		f, err := l.fs.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil {
			out = f
			break
		}
		if !errors.Is(err, os.ErrExist) || i > 1000 {
			return "", err
		}
		name = fmt.Sprintf("%s-%d", base, i)
	}
	_, err := io.Copy(out, io.NewSectionReader(l.f, off, n))
	if err == nil {
		err = out.Sync()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = l.fs.SyncDir(filepath.Dir(l.path))
	}
	if err != nil {
		return "", fmt.Errorf("write %s: %w", name, err)
	}
	return name, nil
}

// markBefore returns the last index mark whose seq is at most seq, or the
// start of the file. l.mu must be held.
func (l *Log) markBefore(seq uint64) mark {
	i := sort.Search(len(l.marks), func(i int) bool { return l.marks[i].seq > seq })
	if i == 0 {
		return mark{seq: 1, off: 0}
	}
	return l.marks[i-1]
}

// LastSeq returns the seq of the last committed record, 0 for an empty log.
func (l *Log) LastSeq() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lastSeq
}

// Path returns the file name of the log.
func (l *Log) Path() string { return l.path }

// Append writes recs to the log and returns them with Seq set (and At, for
// those that came without one). The records of one call get consecutive
// seqs and are written together. Append returns only after the records are
// fsync'ed and Options.Stage's fold of them is committed; concurrent calls share one
// fsync. If ctx is done before the committer takes the records, nothing is
// written and ctx's error is returned; once taken, the records are written
// and Append waits for the outcome.
func (l *Log) Append(ctx context.Context, recs ...Record) ([]Record, error) {
	return l.append(ctx, false, recs)
}

// AppendDurable is Append for records whose effect the writer has already
// decided (a create whose ids were checked free): it returns once the
// records are fsync'ed, and Options.Stage folds them behind the log, in
// larger batches, while the next batches are written. Options.Durable is
// told their last seq before AppendDurable returns. If their fold then
// fails the records stay durable (a reopen folds them) and the log refuses
// every later Append. Without Stage it is Append.
func (l *Log) AppendDurable(ctx context.Context, recs ...Record) ([]Record, error) {
	return l.append(ctx, l.opts.Stage != nil, recs)
}

func (l *Log) append(ctx context.Context, durable bool, recs []Record) ([]Record, error) {
	if len(recs) == 0 {
		return nil, nil
	}
	for i := range recs {
		if err := validate(&recs[i]); err != nil {
			return nil, err
		}
	}
	if l.opts.ReadOnly {
		return nil, ErrReadOnly
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	r := &request{ctx: ctx, recs: recs, res: make(chan result, 1), durable: durable}
	select {
	case l.reqs <- r:
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-l.quit:
		return nil, ErrClosed
	}
	res := <-r.res
	return res.recs, res.err
}

// commitLoop is the single committer: it takes every pending request,
// writes them as one batch and answers them. A batch of AppendDurable
// writers is answered at its fsync and handed to the folder: while the
// committer writes and fsyncs batch N, the writers of batch N+1 gather and
// the folder folds batch N-1. A batch with an Append writer waits for the
// folder to finish and then folds beside its own fsync, as before.
func (l *Log) commitLoop() {
	defer close(l.done)
	if l.folds != nil {
		defer func() {
			close(l.folds)
			<-l.foldDone
		}()
	}
	var batch []*request
	for {
		batch = batch[:0]
		select {
		case r := <-l.reqs:
			batch = append(batch, r)
		case <-l.quit:
			return
		}
		size := len(batch[0].recs) * recordEstimate
	gather:
		for size < maxBatchBytes {
			select {
			case r := <-l.reqs:
				batch = append(batch, r)
				size += len(r.recs) * recordEstimate
			default:
				break gather
			}
		}
		l.commit(batch)
	}
}

// commit writes, syncs and applies one batch and answers its writers.
func (l *Log) commit(batch []*request) {
	defer func() {
		if cap(l.buf) > maxBatchBytes {
			// One huge batch should not pin its buffer for the life of
			// the log.
			l.buf = nil
		}
	}()
	durable := l.folds != nil
	for _, r := range batch {
		durable = durable && r.durable
	}
	if !durable && l.folds != nil {
		// Folds run in seq order: those queued go first.
		l.FoldNow()
		l.folding.Wait()
	}
	if err := l.foldErr.Load(); err != nil && l.failed == nil {
		l.failed = fmt.Errorf("%w (the log refuses further writes; restart the engine so that it reopens the log)", *err)
	}
	if l.failed != nil {
		for _, r := range batch {
			r.res <- result{err: l.failed}
		}
		return
	}
	l.mu.Lock()
	seq, end := l.lastSeq, l.end
	l.mu.Unlock()

	// Writers whose context ended while they waited are answered without
	// writing anything.
	live := batch[:0]
	for _, r := range batch {
		if err := r.ctx.Err(); err != nil {
			r.res <- result{err: err}
			continue
		}
		live = append(live, r)
	}
	if len(live) == 0 {
		return
	}

	now := l.opts.Now()
	l.buf = l.buf[:0]
	n := 0
	for _, r := range live {
		n += len(r.recs)
	}
	all := make([]Record, 0, n)
	offs := make([]int64, 0, n)
	for _, r := range live {
		out := make([]Record, len(r.recs))
		for i, rec := range r.recs {
			seq++
			rec.Seq = seq
			if rec.At.IsZero() {
				rec.At = now
			}
			// Keep exactly what the file holds, so that a record read
			// back equals the one returned.
			rec.At = time.Unix(0, rec.At.UnixNano()).UTC()
			offs = append(offs, end+int64(len(l.buf)))
			// The records of one Append are one group: every one but
			// the last says that more follow, so that a crash that cuts
			// the write short leaves all of them or none.
			l.buf = appendRecord(l.buf, &rec, i < len(r.recs)-1)
			out[i] = rec
		}
		r.recs = out
		all = append(all, out...)
	}

	if err := l.write(end); err != nil {
		l.fail(live, err)
		return
	}
	// Once the batch is fsync'ed, Scan and LastSeq include it, before its
	// fold is made visible: a reader who sees an op in the mirror finds it
	// in the log too. If the fold fails, they go back to the batch before
	// (the log refuses every later append; a reopen reads the file again).
	l.mu.Lock()
	prevMarks, prevSeq, prevEnd := len(l.marks), l.lastSeq, l.end
	l.mu.Unlock()
	publish := func() {
		l.mu.Lock()
		for i, rec := range all {
			if (rec.Seq-1)%markEvery == 0 {
				l.marks = append(l.marks, mark{seq: rec.Seq, off: offs[i]})
			}
		}
		l.lastSeq = seq
		l.end = end + int64(len(l.buf))
		l.mu.Unlock()
	}
	unpublish := func() {
		l.mu.Lock()
		l.marks, l.lastSeq, l.end = l.marks[:prevMarks], prevSeq, prevEnd
		l.mu.Unlock()
	}
	if durable {
		if err := l.sync(len(all)); err != nil {
			l.fail(live, err)
			return
		}
		publish()
		if l.opts.Durable != nil {
			l.opts.Durable(seq)
		}
		for _, r := range live {
			r.res <- result{recs: r.recs}
		}
		l.folding.Add(1)
		l.inFold.Add(1)
		l.folds <- all
		return
	}
	if l.opts.Stage != nil {
		if err := l.syncStaged(all, publish); err != nil {
			unpublish()
			l.fail(live, err)
			return
		}
	} else {
		if err := l.sync(len(all)); err != nil {
			l.fail(live, err)
			return
		}
		publish()
	}
	for _, r := range live {
		r.res <- result{recs: r.recs}
	}
}

// write writes l.buf at the end of the file.
func (l *Log) write(end int64) error {
	if _, err := l.f.Write(l.buf); err != nil {
		// Cut what may have been written, so that a reopen does not find
		// half a batch; if even that fails, the reopen cuts it as a write
		// cut short.
		if terr := l.f.Truncate(end); terr != nil {
			l.logger.Error("oplog: cannot cut a failed write", "path", l.path, "offset", end, "err", terr)
		}
		return fmt.Errorf("oplog: write %s: %w", l.path, err)
	}
	return nil
}

// sync fsyncs the file and reports the batch to Options.OnBatch.
func (l *Log) sync(records int) error {
	start := time.Now()
	if err := l.f.Sync(); err != nil {
		return fmt.Errorf("oplog: fsync %s: %w", l.path, err)
	}
	if l.opts.OnBatch != nil {
		l.opts.OnBatch(records, time.Since(start))
	}
	return nil
}

// syncStaged fsyncs the written batch on another goroutine while
// Options.Stage prepares its fold, then commits the fold once the fsync has
// succeeded: the fold's CPU work hides behind the disk's flush, and nothing
// of it is visible before the batch is durable.
func (l *Log) syncStaged(all []Record, publish func()) error {
	var staged Staged
	var stageErr, syncErr error
	if len(all) == 1 {
		// One record's fold takes about as long as waking another goroutine
		// to fsync beside it (measured: a lone writer was ~5% slower with
		// the overlap), so fold it after the fsync.
		if syncErr = l.sync(1); syncErr == nil {
			staged, stageErr = l.opts.Stage(all)
		}
	} else {
		go func() { l.synced <- l.sync(len(all)) }()
		staged, stageErr = l.opts.Stage(all)
		syncErr = <-l.synced
	}
	if err := syncErr; err != nil {
		if staged != nil {
			staged.Abort()
		}
		return err
	}
	publish()
	if stageErr != nil {
		return applyError(all, stageErr)
	}
	if err := staged.Commit(); err != nil {
		return applyError(all, err)
	}
	return nil
}

// foldLoop is the folder: it folds, in seq order, the batches whose
// writers were answered at their fsync, taking every batch that waits
// into one fold. Once a fold fails it folds nothing more (the mirror would
// miss ops) and the committer refuses every later Append.
func (l *Log) foldLoop() {
	defer close(l.foldDone)
	linger := time.NewTimer(foldLinger)
	linger.Stop()
	// b is the records of one fold, in a buffer kept from one fold to the
	// next unless a large fold grew it past maxKeptFold.
	var b []Record
	for first := range l.folds {
		b = append(b[:0], first...)
		n := 1
		linger.Reset(foldLinger)
	gather:
		for len(b) < maxFoldRecords {
			select {
			case c, ok := <-l.folds:
				if !ok {
					break gather
				}
				b = append(b, c...)
				n++
				continue
			default:
			}
			if len(b) >= foldEnough {
				break
			}
			select {
			case c, ok := <-l.folds:
				if !ok {
					break gather
				}
				b = append(b, c...)
				n++
			case <-l.foldKick:
				break gather
			case <-linger.C:
				break gather
			}
		}
		linger.Stop()
		if l.foldErr.Load() == nil {
			if err := l.fold(b); err != nil {
				err = applyError(b, err)
				l.logger.Error("oplog: fold behind the log failed", "path", l.path, "err", err)
				l.foldErr.Store(&err)
			}
		}
		clear(b)
		if cap(b) > maxKeptFold {
			b = nil
		}
		l.inFold.Add(int64(-n))
		l.folding.Add(-n)
	}
}

// Folding reports whether the folder has batches answered at their fsync
// still to fold: the log is ahead of the mirror.
func (l *Log) Folding() bool { return l.inFold.Load() > 0 }

// FoldNow makes the folder fold the batches answered at their fsync
// without waiting for more (foldLinger): a reader waits for them.
func (l *Log) FoldNow() {
	if l.foldKick == nil {
		return
	}
	select {
	case l.foldKick <- struct{}{}:
	default:
	}
}

// fold stages and commits one fold of records already durable.
func (l *Log) fold(b []Record) error {
	staged, err := l.opts.Stage(b)
	if err != nil {
		return err
	}
	return staged.Commit()
}

func applyError(all []Record, err error) error {
	return fmt.Errorf("oplog: apply ops %d-%d: %w", all[0].Seq, all[len(all)-1].Seq, err)
}

// fail answers the writers of a batch with err and makes the log refuse
// every later append: what is on disk and what was applied may now differ,
// and only a reopen (which reads the file again) can tell.
func (l *Log) fail(batch []*request, err error) {
	l.failed = fmt.Errorf("%w (the log refuses further writes; restart the engine so that it reopens the log)", err)
	l.logger.Error("oplog: batch failed", "path", l.path, "err", err)
	for _, r := range batch {
		r.res <- result{err: err}
	}
}

// Sync fsyncs the log file. Every Append is already synced before it
// returns; Sync is for callers that want to be sure before they stop.
func (l *Log) Sync() error {
	l.mu.Lock()
	closed := l.closed
	l.mu.Unlock()
	if closed {
		return ErrClosed
	}
	if l.opts.ReadOnly {
		return nil
	}
	if err := l.f.Sync(); err != nil {
		return fmt.Errorf("oplog: fsync %s: %w", l.path, err)
	}
	return nil
}

// Close stops the committer (an Append it has taken is finished first),
// syncs and closes the file. Appends after Close get ErrClosed.
func (l *Log) Close() error {
	l.closeOnce.Do(func() {
		close(l.quit)
		<-l.done
		l.mu.Lock()
		l.closed = true
		l.mu.Unlock()
		if l.opts.ReadOnly {
			l.closeErr = l.f.Close()
			return
		}
		if err := l.f.Sync(); err != nil {
			l.closeErr = fmt.Errorf("oplog: close %s: fsync: %w", l.path, err)
		}
		if err := l.f.Close(); err != nil && l.closeErr == nil {
			l.closeErr = fmt.Errorf("oplog: close %s: %w", l.path, err)
		}
	})
	return l.closeErr
}
