package oplog

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"time"
	"unicode/utf8"
)

// Record is one op in the log.
type Record struct {
	Seq       uint64
	At        time.Time
	Op        string // e.g. "moment.create"
	RequestID string // the client request id that caused the op, if any
	// Author is the name of the token whose request wrote the op; empty
	// for the engine's own ops and for every op logged before authors
	// were recorded.
	Author string
	// Member is the family member the op was written for, when it is not
	// Author: an admin writing for a member (push keeping authorship), or
	// a token of a member other than its own name. A Member equal to
	// Author is not written (it is the same as none); MemberOf says whose
	// the op is either way.
	Member string
	Data   json.RawMessage
}

// MemberOf is the family member whose op r is: its Member, or its Author
// when it has none (every token made before members was its own member).
// It is "" for the engine's own ops and for ops logged before authors.
func (r *Record) MemberOf() string {
	if r.Member != "" {
		return r.Member
	}
	return r.Author
}

// writesMember reports whether r's encoding holds its member: only when it
// is not its author's.
func (r *Record) writesMember() bool { return r.Member != "" && r.Member != r.Author }

// Limits of a record; see doc.go for the format.
const (
	MaxRecordSize   = 16 << 20 // payload bytes
	MaxOpLen        = 64
	MaxRequestIDLen = 255
	MaxAuthorLen    = 64 // a token name's limit (engine/auth)
	MaxMemberLen    = 64 // a member name's limit (engine/auth)

	headerSize     = 12
	payloadFixed   = 8 + 8 + 1 + 1 // seq, at, op length, request id length
	minPayloadSize = payloadFixed + 1

	// The header's second word holds the payload length in its low bits
	// and flags in its top bit; the bits between are zero.
	lengthMask = 1<<25 - 1 // MaxRecordSize fits
	// flagMore marks a record that is not the last of its group: the
	// records of one Append are written as a group, all of them or none.
	// Logs written before groups existed never set it, so each of their
	// records is a group of one.
	flagMore = 1 << 31
	// flagAuthor marks a record whose payload holds an author after its
	// request id. Records without an author never set it and are written
	// exactly as before authors existed, so logs written before then open
	// as they are.
	flagAuthor = 1 << 30
	// flagMember marks a record whose payload holds a member after its
	// author (or request id). Only a record whose member differs from its
	// author sets it; every other record is written exactly as before
	// members existed.
	flagMember = 1 << 29
)

var magic = [4]byte{0xF5, 'S', 'O', 'P'}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// ErrClosed is returned by the methods of a Log after Close.
var ErrClosed = errors.New("oplog: the log is closed")

// ErrReadOnly is returned by Append on a log opened with Options.ReadOnly.
var ErrReadOnly = errors.New("oplog: the log is open read-only")

// ErrCorrupt matches every *CorruptError with errors.Is.
var ErrCorrupt = errors.New("oplog: corrupt log")

// ErrInvalid is returned by Append for a record that cannot be written (an
// empty or badly formed op name, a request id too long, data that is not
// JSON, or a record larger than MaxRecordSize).
var ErrInvalid = errors.New("oplog: invalid record")

// CorruptError reports a bad record found in a log file.
type CorruptError struct {
	Path   string
	Offset int64 // byte offset of the start of the bad record
	Reason string
	// Tail is set when the bad bytes are what a write cut short leaves at
	// the end of the file (see doc.go): a record that runs past the end of
	// the file (or into the zeros a file system leaves where data never
	// landed), or a group whose last records are missing. A writable Open
	// saves such a tail beside the log and cuts it, unless it would cut an
	// op known to be acknowledged; a read-only Open leaves it in place.
	Tail bool
}

func (e *CorruptError) Error() string {
	if e.Tail {
		return fmt.Sprintf("oplog: %s: a write cut short at byte offset %d: %s (left by a crash mid-append, never acknowledged; opening the log saves it beside the log and cuts it off)", e.Path, e.Offset, e.Reason)
	}
	return fmt.Sprintf("oplog: %s: corrupt record at byte offset %d: %s; the log needs a person's attention: nothing was cut or changed (restore the log from a backup, or keep a copy and cut it at that offset)", e.Path, e.Offset, e.Reason)
}

// Is makes errors.Is(err, ErrCorrupt) true.
func (e *CorruptError) Is(target error) bool { return target == ErrCorrupt }

// validate checks the fields the encoder writes; the decoder applies the
// same rules so that it accepts only what the encoder produces.
func validate(r *Record) error {
	if r.Op == "" || len(r.Op) > MaxOpLen {
		return fmt.Errorf("%w: the op name must have 1 to %d bytes, got %d", ErrInvalid, MaxOpLen, len(r.Op))
	}
	for i := 0; i < len(r.Op); i++ {
		c := r.Op[i]
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			c == '.' || c == '_' || c == ':' || c == '-'
		if !ok {
			return fmt.Errorf("%w: the op name %q has %q at position %d", ErrInvalid, r.Op, c, i)
		}
	}
	if !r.At.IsZero() && (r.At.Year() < 1678 || r.At.Year() > 2261) {
		return fmt.Errorf("%w: the time %v cannot be stored (years 1678 to 2261 fit)", ErrInvalid, r.At)
	}
	if len(r.RequestID) > MaxRequestIDLen {
		return fmt.Errorf("%w: the request id has %d bytes, at most %d fit", ErrInvalid, len(r.RequestID), MaxRequestIDLen)
	}
	if !utf8.ValidString(r.RequestID) {
		return fmt.Errorf("%w: the request id %q is not valid UTF-8", ErrInvalid, r.RequestID)
	}
	if len(r.Author) > MaxAuthorLen {
		return fmt.Errorf("%w: the author has %d bytes, at most %d fit", ErrInvalid, len(r.Author), MaxAuthorLen)
	}
	if !utf8.ValidString(r.Author) {
		return fmt.Errorf("%w: the author %q is not valid UTF-8", ErrInvalid, r.Author)
	}
	if len(r.Member) > MaxMemberLen {
		return fmt.Errorf("%w: the member has %d bytes, at most %d fit", ErrInvalid, len(r.Member), MaxMemberLen)
	}
	if !utf8.ValidString(r.Member) {
		return fmt.Errorf("%w: the member %q is not valid UTF-8", ErrInvalid, r.Member)
	}
	if n := payloadSize(r); n > MaxRecordSize {
		return fmt.Errorf("%w: op %s is %d bytes, at most %d fit in a record", ErrInvalid, r.Op, n, MaxRecordSize)
	}
	if len(r.Data) > 0 && !json.Valid(r.Data) {
		return fmt.Errorf("%w: the data of op %s is not valid JSON", ErrInvalid, r.Op)
	}
	return nil
}

// payloadSize is the length of r's payload.
func payloadSize(r *Record) int {
	n := payloadFixed + len(r.Op) + len(r.RequestID) + len(r.Data)
	if r.Author != "" {
		n += 1 + len(r.Author)
	}
	if r.writesMember() {
		n += 1 + len(r.Member)
	}
	return n
}

// appendRecord appends the encoding of r to b; more marks a record that is
// not the last of its group. r must have passed validate.
func appendRecord(b []byte, r *Record, more bool) []byte {
	start := len(b)
	word := uint32(payloadSize(r))
	if more {
		word |= flagMore
	}
	if r.Author != "" {
		word |= flagAuthor
	}
	if r.writesMember() {
		word |= flagMember
	}
	b = append(b, magic[:]...)
	b = binary.BigEndian.AppendUint32(b, word)
	b = append(b, 0, 0, 0, 0) // checksum, filled below
	b = binary.BigEndian.AppendUint64(b, r.Seq)
	b = binary.BigEndian.AppendUint64(b, uint64(r.At.UnixNano()))
	b = append(b, byte(len(r.Op)))
	b = append(b, r.Op...)
	b = append(b, byte(len(r.RequestID)))
	b = append(b, r.RequestID...)
	if r.Author != "" {
		b = append(b, byte(len(r.Author)))
		b = append(b, r.Author...)
	}
	if r.writesMember() {
		b = append(b, byte(len(r.Member)))
		b = append(b, r.Member...)
	}
	b = append(b, r.Data...)
	crc := crc32.Update(0, castagnoli, b[start:start+8])
	crc = crc32.Update(crc, castagnoli, b[start+headerSize:])
	binary.BigEndian.PutUint32(b[start+8:], crc)
	return b
}

// checkHeader checks the magic and the length word and returns the
// payload length and whether the record's group goes on after it.
func checkHeader(h []byte) (n int, more bool, reason string) {
	if [4]byte(h[:4]) != magic {
		return 0, false, fmt.Sprintf("bad magic % x", h[:4])
	}
	word := binary.BigEndian.Uint32(h[4:8])
	if word&^(lengthMask|flagMore|flagAuthor|flagMember) != 0 {
		return 0, false, fmt.Sprintf("unknown flags in the length word %08x", word)
	}
	size := word & lengthMask
	if size < minPayloadSize || size > MaxRecordSize {
		return 0, false, fmt.Sprintf("payload length %d out of bounds [%d, %d]", size, minPayloadSize, MaxRecordSize)
	}
	return int(size), word&flagMore != 0, ""
}

// decodePayload checks the checksum of header h over payload p and decodes
// the payload. It returns a reason when the record is bad. The Data of the
// record is a copy, safe to keep.
func decodePayload(h, p []byte) (Record, string) {
	crc := crc32.Update(0, castagnoli, h[:8])
	crc = crc32.Update(crc, castagnoli, p)
	if want := binary.BigEndian.Uint32(h[8:12]); crc != want {
		return Record{}, fmt.Sprintf("checksum mismatch (stored %08x, computed %08x)", want, crc)
	}
	var r Record
	r.Seq = binary.BigEndian.Uint64(p[0:8])
	r.At = time.Unix(0, int64(binary.BigEndian.Uint64(p[8:16]))).UTC()
	rest := p[16:]
	opLen := int(rest[0])
	if 1+opLen+1 > len(rest) {
		return Record{}, fmt.Sprintf("op length %d overruns the payload", opLen)
	}
	r.Op = string(rest[1 : 1+opLen])
	rest = rest[1+opLen:]
	ridLen := int(rest[0])
	if 1+ridLen > len(rest) {
		return Record{}, fmt.Sprintf("request id length %d overruns the payload", ridLen)
	}
	r.RequestID = string(rest[1 : 1+ridLen])
	rest = rest[1+ridLen:]
	if binary.BigEndian.Uint32(h[4:8])&flagAuthor != 0 {
		if len(rest) == 0 {
			return Record{}, "the author's length overruns the payload"
		}
		n := int(rest[0])
		if n == 0 || 1+n > len(rest) {
			return Record{}, fmt.Sprintf("author length %d is empty or overruns the payload", n)
		}
		r.Author = string(rest[1 : 1+n])
		rest = rest[1+n:]
	}
	if binary.BigEndian.Uint32(h[4:8])&flagMember != 0 {
		if len(rest) == 0 {
			return Record{}, "the member's length overruns the payload"
		}
		n := int(rest[0])
		if n == 0 || 1+n > len(rest) {
			return Record{}, fmt.Sprintf("member length %d is empty or overruns the payload", n)
		}
		r.Member = string(rest[1 : 1+n])
		rest = rest[1+n:]
		if r.Member == r.Author {
			// The encoder never writes a member that is the author's.
			return Record{}, "the member is the author"
		}
	}
	if data := rest; len(data) > 0 {
		r.Data = append(json.RawMessage(nil), data...)
	}
	if err := validate(&r); err != nil {
		return Record{}, err.Error()
	}
	return r, ""
}

// decodeRecord decodes the record at the start of b and returns it with
// its group flag and the number of bytes it takes. It never panics,
// whatever b holds.
func decodeRecord(b []byte) (Record, bool, int, error) {
	if len(b) < headerSize {
		return Record{}, false, 0, fmt.Errorf("short header: %d of %d bytes", len(b), headerSize)
	}
	n, more, reason := checkHeader(b[:headerSize])
	if reason != "" {
		return Record{}, false, 0, errors.New(reason)
	}
	if len(b)-headerSize < n {
		return Record{}, false, 0, fmt.Errorf("short payload: %d of %d bytes", len(b)-headerSize, n)
	}
	r, reason := decodePayload(b[:headerSize], b[headerSize:headerSize+n])
	if reason != "" {
		return Record{}, false, 0, errors.New(reason)
	}
	return r, more, headerSize + n, nil
}
