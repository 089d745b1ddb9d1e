package oplog

// The commit path: Append and AppendDurable hand records to the one
// committer goroutine, which writes every pending batch with one write,
// fsyncs once and answers its writers (group commit).

import (
	"context"
	"fmt"
	"time"
)

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
