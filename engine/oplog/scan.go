package oplog

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
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
	// short means the stream ended inside the record: a write cut short.
	short bool
	// size is the payload length the header declares, -1 when the header
	// itself is bad.
	size int
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

// next returns the next record and whether its group goes on after it,
// io.EOF at a clean end, a *badRecord for a bad one, or an I/O error.
func (rd *reader) next() (Record, bool, error) {
	n, err := io.ReadFull(rd.br, rd.hdr[:])
	if err == io.EOF {
		return Record{}, false, io.EOF
	}
	if err == io.ErrUnexpectedEOF {
		return Record{}, false, &badRecord{off: rd.off, reason: fmt.Sprintf("short header: %d of %d bytes", n, headerSize), short: true, size: -1}
	}
	if err != nil {
		return Record{}, false, fmt.Errorf("read at offset %d: %w", rd.off, err)
	}
	size, more, reason := checkHeader(rd.hdr[:])
	if reason != "" {
		return Record{}, false, &badRecord{off: rd.off, reason: reason, size: -1}
	}
	if cap(rd.buf) < size {
		rd.buf = make([]byte, size)
	}
	p := rd.buf[:size]
	n, err = io.ReadFull(rd.br, p)
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return Record{}, false, &badRecord{off: rd.off, reason: fmt.Sprintf("short payload: %d of %d bytes", n, size), short: true, size: size}
	}
	if err != nil {
		return Record{}, false, fmt.Errorf("read at offset %d: %w", rd.off, err)
	}
	rec, reason := decodePayload(rd.hdr[:], p)
	if reason != "" {
		return Record{}, false, &badRecord{off: rd.off, reason: reason, size: size}
	}
	if rec.Seq != rd.prevSeq+1 {
		return Record{}, false, &badRecord{off: rd.off, reason: fmt.Sprintf("seq %d follows seq %d; seqs must go up by one", rec.Seq, rd.prevSeq), size: size, checked: true}
	}
	rd.prevSeq = rec.Seq
	rd.off += int64(headerSize + size)
	return rec, more, nil
}

// fileState is what a scan of a whole log file found.
type fileState struct {
	lastSeq uint64 // seq of the last record of the last whole group
	end     int64  // offset just past the last whole group
	marks   []mark // the sparse index
	// tail, when set, is a write cut short: the bytes from tail.Offset
	// (== end) to the end of the file (Tail is set).
	tail *CorruptError
}

// scanFile reads every record of f (of the given size) from the start.
// It returns the state of the whole groups it read, with the tail a write
// cut short left after them, if any; any other bad record gives a
// *CorruptError (Tail unset) naming path and the record's offset.
//
// What a write cut short may leave, and so what may be cut:
//   - a record that runs past the end of the file: its header or its
//     payload is incomplete;
//   - a record that runs into the zeros at the end of the file (a file
//     system that grew the file but never wrote the data leaves zeros):
//     judged as above against the end of the non-zero bytes;
//   - a group whose first records are whole but whose last is missing or
//     cut short: all of the group is the tail.
//
// and only if no whole record starts after the bad one (a write cut short
// is the last thing written; a length damaged in the middle of the log
// also makes a record run past the end). A record that fails its checksum, or any other check, while it lies
// wholly inside the written bytes is corruption, wherever it is.
func scanFile(ctx context.Context, path string, f io.ReaderAt, size int64) (*fileState, error) {
	st := &fileState{}
	rd := newReader(io.NewSectionReader(f, 0, size), 0, 0)
	type pend struct {
		seq uint64
		off int64
	}
	var group []pend // records read of the group not yet closed
	dataEnd := int64(-1)
	for i := 0; ; i++ {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		off := rd.off
		rec, more, err := rd.next()
		if err == io.EOF {
			if len(group) > 0 {
				st.tail = &CorruptError{Path: path, Offset: st.end, Tail: true,
					Reason: fmt.Sprintf("a group of records was cut short: %d record(s) from seq %d are there, the group's last is missing", len(group), group[0].seq)}
			}
			return st, nil
		}
		var bad *badRecord
		if errors.As(err, &bad) {
			cutShort := bad.short
			if !cutShort && !bad.checked {
				if dataEnd < 0 {
					if dataEnd, err = nonZeroEnd(f, size); err != nil {
						return nil, fmt.Errorf("oplog: %s: %w", path, err)
					}
				}
				recEnd := bad.off + headerSize
				if bad.size >= 0 {
					recEnd += int64(bad.size)
				}
				cutShort = recEnd > dataEnd
				if cutShort {
					bad.reason += fmt.Sprintf("; only zero bytes follow offset %d, where the file's written data ends", dataEnd)
				}
			}
			if cutShort {
				// A write cut short is the last thing written: if a whole
				// record follows the bad one, its length or its bytes were
				// damaged instead (a payload cannot hold a record: its
				// data is JSON, where the magic's 0xF5 never occurs).
				more, err := validAfter(f, bad.off+1, size)
				if err != nil {
					return nil, fmt.Errorf("oplog: %s: %w", path, err)
				}
				if more {
					cutShort = false
					bad.reason += "; whole records follow it, so it is not a write cut short"
				}
			}
			if cutShort {
				// The checksum covers the length word, flag included, so
				// a record written whole passes it with its true length
				// and flag and nothing else: if the bytes there do, its
				// length word was damaged since (a flipped bit), and the
				// record may have been answered.
				n, more, ok, err := wholeUnderDamagedWord(f, bad.off, size, rd.prevSeq)
				if err != nil {
					return nil, fmt.Errorf("oplog: %s: %w", path, err)
				}
				if ok {
					cutShort = false
					group := "the last of its group"
					if more {
						group = "not the last of its group"
					}
					bad.reason += fmt.Sprintf("; yet the bytes there are a whole record, seq %d, of %d payload bytes and %s, whose checksum matches once its length word says so: it was written whole and its length word was damaged since, so it is not a write cut short", rd.prevSeq+1, n, group)
				}
			}
			if cutShort && st.end == 0 {
				// A file whose very first bytes are bad is a first append
				// cut short only if they look like one; anything else is
				// not a log, and must not be cut to nothing.
				ok, err := startsLikeLog(f, size)
				if err != nil {
					return nil, fmt.Errorf("oplog: %s: %w", path, err)
				}
				if !ok {
					return nil, &CorruptError{Path: path, Offset: 0, Reason: bad.reason + "; the file does not look like an op log"}
				}
			}
			if !cutShort {
				ce := &CorruptError{Path: path, Offset: bad.off, Reason: bad.reason}
				if bad.off == 0 {
					if ok, _ := startsLikeLog(f, size); !ok {
						ce.Reason += "; the file does not look like an op log"
					}
				}
				return nil, ce
			}
			reason := bad.reason
			if len(group) > 0 {
				reason = fmt.Sprintf("the record at offset %d, of a group that starts at seq %d, is cut short: %s", bad.off, group[0].seq, bad.reason)
			}
			st.tail = &CorruptError{Path: path, Offset: st.end, Reason: reason, Tail: true}
			return st, nil
		}
		if err != nil {
			return nil, fmt.Errorf("oplog: %s: %w", path, err)
		}
		group = append(group, pend{rec.Seq, off})
		if more {
			continue
		}
		for _, p := range group {
			if (p.seq-1)%markEvery == 0 {
				st.marks = append(st.marks, mark{seq: p.seq, off: p.off})
			}
		}
		st.lastSeq = rec.Seq
		st.end = rd.off
		group = group[:0]
	}
}

// wholeUnderDamagedWord reports whether the bytes at off hold a record
// written whole, with seq prevSeq+1, whose length word alone was damaged
// since: with another length (the one its own bytes show: where its JSON
// data ends), either group flag and any of the author and member flags
// in the length word, its checksum matches. It returns the payload length
// and group flag that match. A write cut short cannot pass that test: its
// record's true bytes are not all there, and the checksum covers the
// length word. It reads at most MaxRecordSize bytes and decodes the data
// at most four times.
func wholeUnderDamagedWord(f io.ReaderAt, off, size int64, prevSeq uint64) (n int, more bool, ok bool, err error) {
	if size-off < headerSize+minPayloadSize {
		return 0, false, false, nil
	}
	var h [headerSize]byte
	if _, err := f.ReadAt(h[:], off); err != nil {
		return 0, false, false, fmt.Errorf("read at offset %d: %w", off, err)
	}
	if [4]byte(h[:4]) != magic {
		return 0, false, false, nil
	}
	// The fixed fields first: the seq must be the next one.
	var fixed [payloadFixed - 1]byte
	if _, err := f.ReadAt(fixed[:], off+headerSize); err != nil {
		return 0, false, false, fmt.Errorf("read at offset %d: %w", off+headerSize, err)
	}
	if binary.BigEndian.Uint64(fixed[:8]) != prevSeq+1 {
		return 0, false, false, nil
	}
	avail := int(min(size-off-headerSize, MaxRecordSize))
	p := make([]byte, avail)
	if _, err := f.ReadAt(p, off+headerSize); err != nil && err != io.EOF {
		return 0, false, false, fmt.Errorf("read at offset %d: %w", off+headerSize, err)
	}
	stored := binary.BigEndian.Uint32(h[4:8])
	for _, names := range []uint32{0, flagAuthor, flagMember, flagAuthor | flagMember} {
		// Where the data starts: after the op, the request id and, when
		// the record has them, the author and the member.
		d := 16
		d += 1 + int(p[d])
		if d >= avail {
			continue
		}
		d += 1 + int(p[d])
		if names&flagAuthor != 0 {
			if d >= avail {
				continue
			}
			d += 1 + int(p[d])
		}
		if names&flagMember != 0 {
			if d >= avail {
				continue
			}
			d += 1 + int(p[d])
		}
		if d > avail {
			continue
		}
		// The data is empty, or one JSON value and the white space after it.
		cands := []int{d}
		if d < avail {
			dec := json.NewDecoder(bytes.NewReader(p[d:]))
			var v json.RawMessage
			if dec.Decode(&v) == nil {
				e := d + int(dec.InputOffset())
				cands = append(cands, e)
				for ; e < avail && isJSONSpace(p[e]); e++ {
					cands = append(cands, e+1)
				}
			}
		}
		for _, l := range cands {
			if l < minPayloadSize {
				continue
			}
			for _, flag := range []uint32{0, flagMore} {
				word := uint32(l) | flag | names
				if word == stored {
					continue // the header as it is: already failed
				}
				h2 := h
				binary.BigEndian.PutUint32(h2[4:8], word)
				if rec, reason := decodePayload(h2[:], p[:l]); reason == "" && rec.Seq == prevSeq+1 {
					return l, flag != 0, true, nil
				}
			}
		}
	}
	return 0, false, false, nil
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// validAfter reports whether some whole, valid record starts in f after
// offset off and before size.
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
	n, _, reason := checkHeader(h[:])
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

// nonZeroEnd returns the offset just past the last non-zero byte of f.
func nonZeroEnd(f io.ReaderAt, size int64) (int64, error) {
	buf := make([]byte, 64<<10)
	for end := size; end > 0; {
		start := max(0, end-int64(len(buf)))
		b := buf[:end-start]
		if _, err := f.ReadAt(b, start); err != nil && err != io.EOF {
			return 0, fmt.Errorf("read at offset %d: %w", start, err)
		}
		for i := len(b) - 1; i >= 0; i-- {
			if b[i] != 0 {
				return start + int64(i) + 1, nil
			}
		}
		end = start
	}
	return 0, nil
}

// Verify reads and checks every record of the log file at path, for fsck.
// It changes nothing. It returns the number of records of whole groups
// and the last one's seq; a bad record gives a *CorruptError, with Tail
// set if it is a write cut short at the end of the file (which a writable
// Open saves aside and cuts).
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
	st, err := scanFile(ctx, path, f, fi.Size())
	if err != nil {
		return 0, 0, err
	}
	// Seqs start at 1 and go up by one, so the last is the count.
	if st.tail != nil {
		return int(st.lastSeq), st.lastSeq, st.tail
	}
	return int(st.lastSeq), st.lastSeq, nil
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
	f, err := l.fs.OpenFile(l.path, os.O_RDONLY, 0)
	if err != nil {
		return fmt.Errorf("oplog: scan: %w", err)
	}
	defer f.Close()
	rd := newReader(io.NewSectionReader(f, m.off, end-m.off), m.off, m.seq-1)
	open := false // inside a group
	for i := 0; ; i++ {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		rec, more, err := rd.next()
		if err == io.EOF {
			if rd.prevSeq != last || open {
				return &CorruptError{Path: l.path, Offset: rd.off, Reason: fmt.Sprintf("the log ends at seq %d, expected %d at the end of a group", rd.prevSeq, last)}
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
		open = more
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
	end, err := nonZeroEnd(f, size)
	return end == 0, err
}
