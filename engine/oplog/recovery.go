package oplog

// Recovery: what Open does with the log file it finds, reading it whole,
// indexing it and saving aside and cutting a write cut short by a crash.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/sparkfamily/spark/engine/vfs"
)

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
