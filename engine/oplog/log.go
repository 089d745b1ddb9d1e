package oplog

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/sparkfamily/spark/atomicfile"
)

// Options configure a Log.
type Options struct {
	Logger *slog.Logger
	// Stage, if set, folds each batch (the engine folds it into the SQLite
	// mirror, one transaction), overlapping the batch's fsync rather than
	// following it. The single committer goroutine calls it, in seq order,
	// with each batch right after writing it, while the fsync runs on
	// another goroutine; it prepares the fold without making any of it
	// visible (an open SQLite transaction) and must not change the records.
	// Once the fsync has succeeded the committer calls the Staged's Commit,
	// and only then answers the writers; if the fsync failed it calls Abort
	// instead. If Stage or Commit fails, the writers of the batch get its
	// error and the log refuses every later Append (the mirror would miss
	// ops): the engine must be reopened, which folds the missing ops from
	// the log. Without Stage the log only writes and fsyncs.
	Stage func(batch []Record) (Staged, error)
	// OnBatch, if set, is told each fsync batch's size and the time the
	// fsync took (for metrics). It is called from the committer goroutine.
	OnBatch func(records int, fsync time.Duration)
	// Now gives the time stamped on records that come without one; it
	// defaults to time.Now.
	Now func() time.Time
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
// the committer keeps between batches.
const maxBatchBytes = 8 << 20

// recordEstimate is what the gather loop counts for each record.
const recordEstimate = 256

// markEvery is how many records apart the sparse index's marks are.
const markEvery = 4096

// Log is an open op log. Its methods are safe for concurrent use.
type Log struct {
	path   string
	f      *os.File
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
}

type result struct {
	recs []Record
	err  error
}

// Open opens the log file at path, creating it if needed, and checks every
// record. A torn last record is cut off with a logged warning; any other bad
// record makes Open fail with a *CorruptError naming the file and offset.
func Open(path string, opts Options) (*Log, error) {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	_, statErr := os.Stat(path)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("oplog: open: %w", err)
	}
	if errors.Is(statErr, os.ErrNotExist) {
		// Make the new file's directory entry durable.
		if err := atomicfile.SyncDir(filepath.Dir(path)); err != nil {
			f.Close()
			return nil, fmt.Errorf("oplog: open %s: %w", path, err)
		}
	}
	l := &Log{
		path:   path,
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
	go l.commitLoop()
	return l, nil
}

// recover reads the whole file, builds the sparse index and cuts a torn tail.
func (l *Log) recover() error {
	fi, err := l.f.Stat()
	if err != nil {
		return fmt.Errorf("oplog: open %s: %w", l.path, err)
	}
	size := fi.Size()
	var n int
	err = scanFile(context.Background(), l.path, l.f, size, func(r Record, off int64) error {
		if n%markEvery == 0 {
			l.marks = append(l.marks, mark{seq: r.Seq, off: off})
		}
		n++
		l.lastSeq = r.Seq
		return nil
	})
	var ce *CorruptError
	if errors.As(err, &ce) && ce.Tail {
		l.logger.Warn("oplog: cutting off a torn last record, left by a crash mid-append; it was never acknowledged",
			"path", l.path, "offset", ce.Offset, "bytes", size-ce.Offset, "reason", ce.Reason, "last_seq", l.lastSeq)
		if err := l.f.Truncate(ce.Offset); err != nil {
			return fmt.Errorf("oplog: open %s: cut torn tail at offset %d: %w", l.path, ce.Offset, err)
		}
		if err := l.f.Sync(); err != nil {
			return fmt.Errorf("oplog: open %s: sync after cutting torn tail: %w", l.path, err)
		}
		size = ce.Offset
	} else if err != nil {
		return err
	}
	l.end = size
	return nil
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
	if len(recs) == 0 {
		return nil, nil
	}
	for i := range recs {
		if err := validate(&recs[i]); err != nil {
			return nil, err
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	r := &request{ctx: ctx, recs: recs, res: make(chan result, 1)}
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
// writes them as one batch and answers them.
func (l *Log) commitLoop() {
	defer close(l.done)
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
	var all []Record
	var offs []int64
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
			l.buf = appendRecord(l.buf, &rec)
			out[i] = rec
		}
		r.recs = out
		all = append(all, out...)
	}

	if err := l.write(end); err != nil {
		l.fail(live, err)
		return
	}
	if l.opts.Stage != nil {
		if err := l.syncStaged(all); err != nil {
			l.fail(live, err)
			return
		}
	} else if err := l.sync(len(all)); err != nil {
		l.fail(live, err)
		return
	}

	l.mu.Lock()
	for i, rec := range all {
		if (rec.Seq-1)%markEvery == 0 {
			l.marks = append(l.marks, mark{seq: rec.Seq, off: offs[i]})
		}
	}
	l.lastSeq = seq
	l.end = end + int64(len(l.buf))
	l.mu.Unlock()
	for _, r := range live {
		r.res <- result{recs: r.recs}
	}
	if cap(l.buf) > 2*maxBatchBytes {
		// One huge Append should not pin its buffer for the life of the log.
		l.buf = nil
	}
}

// write writes l.buf at the end of the file.
func (l *Log) write(end int64) error {
	if _, err := l.f.Write(l.buf); err != nil {
		// Cut what may have been written, so that a reopen does not find
		// half a batch; if even that fails, the reopen cuts a torn tail.
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
func (l *Log) syncStaged(all []Record) error {
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
	if stageErr != nil {
		return applyError(all, stageErr)
	}
	if err := staged.Commit(); err != nil {
		return applyError(all, err)
	}
	return nil
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
		if err := l.f.Sync(); err != nil {
			l.closeErr = fmt.Errorf("oplog: close %s: fsync: %w", l.path, err)
		}
		if err := l.f.Close(); err != nil && l.closeErr == nil {
			l.closeErr = fmt.Errorf("oplog: close %s: %w", l.path, err)
		}
	})
	return l.closeErr
}
