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
