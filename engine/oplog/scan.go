package oplog

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
)

// reader reads records one by one from a stream through a small buffer,
// checking each record and the seq that links it to the one before.
type reader struct {
	br      *bufio.Reader
	off     int64  // offset of the next record in the file
	prevSeq uint64 // seq of the last record read; the next must be prevSeq+1
	hdr     [headerSize]byte
	buf     []byte // payload buffer, reused
}

// badRecord is what reader.next returns for a record that fails a check.
type badRecord struct {
	off    int64
	reason string
	// short means the stream ended inside the record.
	short bool
	// checked means the checksum matched, so the record is not torn but
	// impossible; it is corruption wherever it is.
	checked bool
}

func (b *badRecord) Error() string {
	return fmt.Sprintf("bad record at offset %d: %s", b.off, b.reason)
}

func newReader(r io.Reader, off int64, prevSeq uint64) *reader {
	return &reader{br: bufio.NewReaderSize(r, 64<<10), off: off, prevSeq: prevSeq}
}

// next returns the next record, io.EOF at a clean end, a *badRecord for a
// bad one, or an I/O error.
func (rd *reader) next() (Record, error) {
	n, err := io.ReadFull(rd.br, rd.hdr[:])
	if err == io.EOF {
		return Record{}, io.EOF
	}
	if err == io.ErrUnexpectedEOF {
		return Record{}, &badRecord{off: rd.off, reason: fmt.Sprintf("short header: %d of %d bytes", n, headerSize), short: true}
	}
	if err != nil {
		return Record{}, fmt.Errorf("read at offset %d: %w", rd.off, err)
	}
	size, reason := checkHeader(rd.hdr[:])
	if reason != "" {
		return Record{}, &badRecord{off: rd.off, reason: reason}
	}
	if cap(rd.buf) < size {
		rd.buf = make([]byte, size)
	}
	p := rd.buf[:size]
	n, err = io.ReadFull(rd.br, p)
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return Record{}, &badRecord{off: rd.off, reason: fmt.Sprintf("short payload: %d of %d bytes", n, size), short: true}
	}
	if err != nil {
		return Record{}, fmt.Errorf("read at offset %d: %w", rd.off, err)
	}
	rec, reason := decodePayload(rd.hdr[:], p)
	if reason != "" {
		return Record{}, &badRecord{off: rd.off, reason: reason}
	}
	if rec.Seq != rd.prevSeq+1 {
		return Record{}, &badRecord{off: rd.off, reason: fmt.Sprintf("seq %d follows seq %d; seqs must go up by one", rec.Seq, rd.prevSeq), checked: true}
	}
	rd.prevSeq = rec.Seq
	rd.off += int64(headerSize + size)
	return rec, nil
}

// validAfter reports whether some valid record starts in f after offset off
// and before size. It is asked only when a record is bad, to tell a torn
// tail (nothing valid after it) from corruption.
func validAfter(f io.ReaderAt, off, size int64) (bool, error) {
	const chunk = 64 << 10
	buf := make([]byte, chunk+len(magic)-1)
	for pos := off; pos < size; pos += chunk {
		n, err := f.ReadAt(buf[:min(int64(len(buf)), size-pos)], pos)
		if err != nil && err != io.EOF {
			return false, fmt.Errorf("read at offset %d: %w", pos, err)
		}
		b := buf[:n]
		for i := 0; ; {
			j := bytes.Index(b[i:], magic[:])
			if j < 0 || i+j >= chunk {
				break
			}
			ok, err := recordAt(f, pos+int64(i+j), size)
			if err != nil {
				return false, err
			}
			if ok {
				return true, nil
			}
			i += j + 1
		}
	}
	return false, nil
}

// recordAt reports whether a whole, valid record starts at off.
func recordAt(f io.ReaderAt, off, size int64) (bool, error) {
	if size-off < headerSize+minPayloadSize {
		return false, nil
	}
	var h [headerSize]byte
	if _, err := f.ReadAt(h[:], off); err != nil {
		return false, fmt.Errorf("read at offset %d: %w", off, err)
	}
	n, reason := checkHeader(h[:])
	if reason != "" || size-off-headerSize < int64(n) {
		return false, nil
	}
	p := make([]byte, n)
	if _, err := f.ReadAt(p, off+headerSize); err != nil {
		return false, fmt.Errorf("read at offset %d: %w", off+headerSize, err)
	}
	_, reason = decodePayload(h[:], p)
	return reason == "", nil
}

// scanFile reads every record of f (of the given size) from the start and
// calls fn for each. For a bad record it returns a *CorruptError, with Tail
// set when nothing valid follows the bad record and it is not an impossible
// record with a good checksum.
func scanFile(ctx context.Context, path string, f *os.File, size int64, fn func(Record, int64) error) error {
	rd := newReader(io.NewSectionReader(f, 0, size), 0, 0)
	for i := 0; ; i++ {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		off := rd.off
		rec, err := rd.next()
		if err == io.EOF {
			return nil
		}
		var bad *badRecord
		if errors.As(err, &bad) {
			ce := &CorruptError{Path: path, Offset: bad.off, Reason: bad.reason}
			if !bad.checked {
				more, err := validAfter(f, bad.off+1, size)
				if err != nil {
					return fmt.Errorf("oplog: %s: %w", path, err)
				}
				ce.Tail = !more
				if ce.Tail && bad.off == 0 {
					// A file whose very first bytes are bad is a torn
					// first append only if they look like one; anything
					// else is not a log, and must not be cut to nothing.
					ok, err := startsLikeLog(f, size)
					if err != nil {
						return fmt.Errorf("oplog: %s: %w", path, err)
					}
					if !ok {
						ce.Tail = false
						ce.Reason += "; the file does not look like an op log"
					}
				}
			}
			return ce
		}
		if err != nil {
			return fmt.Errorf("oplog: %s: %w", path, err)
		}
		if err := fn(rec, off); err != nil {
			return err
		}
	}
}

// Verify reads and checks every record of the log file at path, for fsck.
// It changes nothing. A bad record gives a *CorruptError (with Tail set if
// it is a torn last record, which Open would cut off).
func Verify(ctx context.Context, path string) (records int, lastSeq uint64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, fmt.Errorf("oplog: verify: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0, 0, fmt.Errorf("oplog: verify: %w", err)
	}
	err = scanFile(ctx, path, f, fi.Size(), func(r Record, _ int64) error {
		records++
		lastSeq = r.Seq
		return nil
	})
	return records, lastSeq, err
}

// Scan calls fn, in seq order, for each committed record with a seq greater
// than after. It reads the file from disk through a small buffer, checking
// every record, so it takes constant memory whatever the size of the log.
// Records appended while Scan runs are not seen. An error from fn stops the
// scan and is returned as is. fn may keep the records it is given.
func (l *Log) Scan(ctx context.Context, after uint64, fn func(Record) error) error {
	l.mu.Lock()
	closed, end, last := l.closed, l.end, l.lastSeq
	m := l.markBefore(after + 1)
	l.mu.Unlock()
	if closed {
		return ErrClosed
	}
	if after >= last {
		return nil
	}
	f, err := os.Open(l.path)
	if err != nil {
		return fmt.Errorf("oplog: scan: %w", err)
	}
	defer f.Close()
	rd := newReader(io.NewSectionReader(f, m.off, end-m.off), m.off, m.seq-1)
	for i := 0; ; i++ {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		rec, err := rd.next()
		if err == io.EOF {
			if rd.prevSeq != last {
				return &CorruptError{Path: l.path, Offset: rd.off, Reason: fmt.Sprintf("the log ends at seq %d, expected %d", rd.prevSeq, last)}
			}
			return nil
		}
		var bad *badRecord
		if errors.As(err, &bad) {
			return &CorruptError{Path: l.path, Offset: bad.off, Reason: bad.reason}
		}
		if err != nil {
			return fmt.Errorf("oplog: scan %s: %w", l.path, err)
		}
		if rec.Seq <= after {
			continue
		}
		if err := fn(rec); err != nil {
			return err
		}
	}
}

// startsLikeLog reports whether a file of the given size begins like the
// remains of a first append: the start of the magic, or zero bytes only (a
// crash can leave a file extended with zeros).
func startsLikeLog(f io.ReaderAt, size int64) (bool, error) {
	head := make([]byte, min(size, int64(len(magic))))
	if _, err := f.ReadAt(head, 0); err != nil && err != io.EOF {
		return false, fmt.Errorf("read at offset 0: %w", err)
	}
	if bytes.Equal(head, magic[:len(head)]) {
		return true, nil
	}
	buf := make([]byte, 64<<10)
	for pos := int64(0); pos < size; pos += int64(len(buf)) {
		n, err := f.ReadAt(buf[:min(int64(len(buf)), size-pos)], pos)
		if err != nil && err != io.EOF {
			return false, fmt.Errorf("read at offset %d: %w", pos, err)
		}
		for _, c := range buf[:n] {
			if c != 0 {
				return false, nil
			}
		}
	}
	return true, nil
}
