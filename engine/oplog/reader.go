package oplog

import (
	"errors"
	"fmt"
	"io"
)

// Reader reads records from log bytes that start at a record: a log file
// from its start, or a part of one (an off-site copy's segment, package
// engine/backup). Every record is checked as Open checks it (magic,
// length, checksum, a well-formed payload) and must carry the seq after
// the one before it, so a reader that reaches io.EOF has read whole,
// good records only. It reads through a small buffer: constant memory
// whatever the length.
type Reader struct {
	name string
	rd   *reader
	raw  []byte
}

// NewReader reads the records in r, the first of which must have seq
// prevSeq+1. name names the bytes in errors (a file or an object).
func NewReader(r io.Reader, name string, prevSeq uint64) *Reader {
	return &Reader{name: name, rd: newReader(r, 0, prevSeq)}
}

// RecordError is a Reader's bad record: damaged, out of seq, or cut short
// by the end of the bytes. errors.Is(err, ErrCorrupt) holds for it.
type RecordError struct {
	Name   string // the bytes' name, as given to NewReader
	Offset int64  // the record's offset in them
	Reason string
	// Short is set when the bytes end inside the record: what a reader
	// of a log being appended to meets at its end.
	Short bool
}

func (e *RecordError) Error() string {
	return fmt.Sprintf("oplog: %s: bad record at byte offset %d: %s", e.Name, e.Offset, e.Reason)
}

// Is makes errors.Is(err, ErrCorrupt) true.
func (e *RecordError) Is(target error) bool { return target == ErrCorrupt }

// Next returns the next record, whether its group goes on after it, and
// its bytes exactly as they are in the log (valid until the next call).
// It returns io.EOF at a clean end of the bytes (which may fall inside a
// group: the caller knows whether it wanted the group whole), a
// *RecordError naming the bytes and the offset for a bad record or one
// cut short, or an I/O error.
func (r *Reader) Next() (rec Record, more bool, raw []byte, err error) {
	off := r.rd.off
	rec, more, err = r.rd.next()
	var bad *badRecord
	if errors.As(err, &bad) {
		return Record{}, false, nil, &RecordError{Name: r.name, Offset: bad.off, Reason: bad.reason, Short: bad.short}
	}
	if err != nil {
		return Record{}, false, nil, err
	}
	n := int(r.rd.off - off)
	r.raw = append(r.raw[:0], r.rd.hdr[:]...)
	r.raw = append(r.raw, r.rd.buf[:n-headerSize]...)
	return rec, more, r.raw, nil
}

// LastSeq is the seq of the last record read (prevSeq before the first).
func (r *Reader) LastSeq() uint64 { return r.rd.prevSeq }
