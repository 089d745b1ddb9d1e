package oplog

// The fold behind the log: the folder goroutine folds, in seq order, the
// batches whose writers were answered at their fsync (AppendDurable).

import (
	"fmt"
	"time"
)

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
