package photo

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"strings"
	"time"
)

// maxMetaChunk bounds how much of a PNG or WebP metadata chunk, or of a
// HEIF Exif item, is read to look for the orientation and the date; real
// EXIF blocks are a few kilobytes.
const maxMetaChunk = 1 << 20

var errNotJPEG = errors.New("no JPEG start-of-image marker")

// EXIF tags read here.
const (
	tagOrientation         = 0x0112
	tagDateTime            = 0x0132
	tagExifIFD             = 0x8769
	tagDateTimeOriginal    = 0x9003
	tagDateTimeDigitized   = 0x9004
	tagOffsetTime          = 0x9010
	tagOffsetTimeOriginal  = 0x9011
	tagOffsetTimeDigitized = 0x9012
)

// exifMeta is what Spark takes from an EXIF block.
type exifMeta struct {
	// orientation is the Orientation tag, 1 to 8, or 0 when absent or
	// out of range.
	orientation int
	// taken is when the photo was taken, or zero; see Info.Taken.
	taken time.Time
}

// tiffBlock is a TIFF structure (the body of an EXIF block) being read.
// Its methods never read outside b, whatever offsets the block claims.
type tiffBlock struct {
	b  []byte
	bo binary.ByteOrder
}

// tiffEntry is one 12-byte IFD entry.
type tiffEntry struct {
	tag, typ uint16
	count    uint32
	value    []byte // the 4-byte value-or-offset field
}

// ifd returns the entries of the IFD at off, or nil when it does not fit
// in the block. An IFD cut short keeps the entries that fit.
func (t tiffBlock) ifd(off uint32) []tiffEntry {
	o := int64(off)
	if o < 8 || o+2 > int64(len(t.b)) {
		return nil
	}
	n := int64(t.bo.Uint16(t.b[o:]))
	var out []tiffEntry
	for i := int64(0); i < n; i++ {
		e := o + 2 + 12*i
		if e+12 > int64(len(t.b)) {
			break
		}
		out = append(out, tiffEntry{
			tag:   t.bo.Uint16(t.b[e:]),
			typ:   t.bo.Uint16(t.b[e+2:]),
			count: t.bo.Uint32(t.b[e+4:]),
			value: t.b[e+8 : e+12],
		})
	}
	return out
}

// text returns an entry of bytes (ASCII, BYTE or UNDEFINED) as a string
// cut at its first NUL and trimmed of spaces, or "" when it is of another
// type or its data lies outside the block.
func (t tiffBlock) text(e tiffEntry) string {
	if e.typ != 1 && e.typ != 2 && e.typ != 7 {
		return ""
	}
	var data []byte
	if e.count <= 4 {
		data = e.value[:e.count]
	} else {
		off := int64(t.bo.Uint32(e.value))
		end := off + int64(e.count)
		if off < 8 || end > int64(len(t.b)) {
			return ""
		}
		data = t.b[off:end]
	}
	if i := bytes.IndexByte(data, 0); i >= 0 {
		data = data[:i]
	}
	return strings.TrimSpace(string(data))
}

// parseEXIF reads the orientation (from IFD0) and the date taken (from
// the Exif sub-IFD, else IFD0) of a TIFF structure, optionally preceded
// by the "Exif\0\0" of a JPEG APP1 segment. Anything it cannot make sense
// of is left zero.
func parseEXIF(b []byte) exifMeta {
	b = bytes.TrimPrefix(b, []byte("Exif\x00\x00"))
	var m exifMeta
	if len(b) < 8 {
		return m
	}
	t := tiffBlock{b: b}
	switch string(b[:2]) {
	case "II":
		t.bo = binary.LittleEndian
	case "MM":
		t.bo = binary.BigEndian
	default:
		return m
	}
	if t.bo.Uint16(b[2:]) != 42 {
		return m
	}
	var dateTime, offsetTime string
	var exifIFD uint32
	for _, e := range t.ifd(t.bo.Uint32(b[4:])) {
		switch e.tag {
		case tagOrientation:
			var v int
			switch e.typ {
			case 3: // SHORT, as the standard says.
				v = int(t.bo.Uint16(e.value))
			case 4: // LONG, written by a few tools.
				v = int(t.bo.Uint32(e.value))
			}
			if v >= 1 && v <= 8 {
				m.orientation = v
			}
		case tagDateTime:
			dateTime = t.text(e)
		case tagExifIFD:
			if e.typ == 4 || e.typ == 13 { // LONG or IFD
				exifIFD = t.bo.Uint32(e.value)
			}
		}
	}
	var original, offsetOriginal, digitized, offsetDigitized string
	for _, e := range t.ifd(exifIFD) {
		switch e.tag {
		case tagDateTimeOriginal:
			original = t.text(e)
		case tagOffsetTimeOriginal:
			offsetOriginal = t.text(e)
		case tagDateTimeDigitized:
			digitized = t.text(e)
		case tagOffsetTimeDigitized:
			offsetDigitized = t.text(e)
		case tagOffsetTime:
			offsetTime = t.text(e)
		}
	}
	// Each date pairs with its own offset tag: OffsetTimeOriginal says
	// nothing about a DateTime written later by an editor elsewhere.
	for _, d := range [...][2]string{{original, offsetOriginal}, {digitized, offsetDigitized}, {dateTime, offsetTime}} {
		if tm := exifTime(d[0], d[1]); !tm.IsZero() {
			m.taken = tm
			break
		}
	}
	return m
}

// exifTime parses an EXIF date ("2006:01:02 15:04:05") with its offset
// tag ("+01:00"). Without a valid offset the date is taken as local time,
// since that is what a camera's clock shows. Dates before 1900 (unset
// clocks, "0000:00:00 00:00:00") and anything unparsable give zero.
func exifTime(date, offset string) time.Time {
	if len(date) < 19 {
		return time.Time{}
	}
	// Some writers use ISO separators; EXIF itself uses colons and a space.
	d := []byte(date[:19])
	if d[4] == '-' && d[7] == '-' {
		d[4], d[7] = ':', ':'
	}
	if d[10] == 'T' {
		d[10] = ' '
	}
	loc := time.Local
	if z, ok := exifZone(offset); ok {
		loc = z
	}
	tm, err := time.ParseInLocation("2006:01:02 15:04:05", string(d), loc)
	if err != nil || tm.Year() < 1900 {
		return time.Time{}
	}
	return tm
}

// exifZone parses an EXIF offset tag, "+hh:mm" or "-hh:mm".
func exifZone(s string) (*time.Location, bool) {
	if len(s) != 6 || (s[0] != '+' && s[0] != '-') || s[3] != ':' {
		return nil, false
	}
	digit := func(c byte) (int, bool) { return int(c - '0'), c >= '0' && c <= '9' }
	h1, ok1 := digit(s[1])
	h2, ok2 := digit(s[2])
	m1, ok3 := digit(s[4])
	m2, ok4 := digit(s[5])
	h, m := h1*10+h2, m1*10+m2
	if !ok1 || !ok2 || !ok3 || !ok4 || h > 14 || m > 59 {
		return nil, false
	}
	secs := (h*60 + m) * 60
	if s[0] == '-' {
		secs = -secs
	}
	return time.FixedZone("", secs), true
}

// jpegEXIF walks a JPEG's marker segments up to the start of scan and
// returns what its first EXIF APP1 segment says. It reads only the headers.
func jpegEXIF(r *bufio.Reader) (exifMeta, error) {
	var soi [2]byte
	if _, err := io.ReadFull(r, soi[:]); err != nil {
		return exifMeta{}, err
	}
	if soi != [2]byte{0xff, 0xd8} {
		return exifMeta{}, errNotJPEG
	}
	var meta exifMeta
	found := false
	for {
		c, err := r.ReadByte()
		if err != nil {
			return exifMeta{}, err
		}
		if c != 0xff {
			// Not a marker: some writers leave junk between segments;
			// skip it as image/jpeg does.
			continue
		}
		m, err := r.ReadByte()
		for err == nil && m == 0xff { // fill bytes
			m, err = r.ReadByte()
		}
		if err != nil {
			return exifMeta{}, err
		}
		switch {
		case m == 0x00 || m == 0x01 || (m >= 0xd0 && m <= 0xd8):
			continue // no length: stuffed byte, TEM, RSTn or SOI
		case m == 0xd9 || m == 0xda: // EOI or SOS: no more headers
			return meta, nil
		}
		var lb [2]byte
		if _, err := io.ReadFull(r, lb[:]); err != nil {
			return exifMeta{}, err
		}
		n := int(binary.BigEndian.Uint16(lb[:])) - 2
		if n < 0 {
			return exifMeta{}, errors.New("bad marker segment length")
		}
		// APP1 also holds XMP; only the first EXIF one counts.
		if m == 0xe1 && !found && n >= 14 {
			seg := make([]byte, n)
			if _, err := io.ReadFull(r, seg); err != nil {
				return exifMeta{}, err
			}
			if bytes.HasPrefix(seg, []byte("Exif\x00\x00")) {
				meta, found = parseEXIF(seg), true
			}
			continue
		}
		if _, err := r.Discard(n); err != nil {
			return exifMeta{}, err
		}
	}
}

// readEXIF reads and parses the n bytes of an EXIF chunk (PNG's eXIf,
// WebP's EXIF) at r's offset; one larger than maxMetaChunk is passed over.
func readEXIF(r io.Reader, n int64) (exifMeta, error) {
	if n > maxMetaChunk {
		return exifMeta{}, nil
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r, b); err != nil {
		return exifMeta{}, err
	}
	return parseEXIF(b), nil
}

// pngEXIF looks for an eXIf chunk before the image data.
func pngEXIF(r io.ReadSeeker) (exifMeta, error) {
	if _, err := r.Seek(8, io.SeekStart); err != nil {
		return exifMeta{}, err
	}
	var hdr [8]byte
	for {
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			return exifMeta{}, err
		}
		n := int64(binary.BigEndian.Uint32(hdr[:4]))
		switch string(hdr[4:]) {
		case "IDAT", "IEND":
			return exifMeta{}, nil
		case "eXIf":
			return readEXIF(r, n)
		}
		if _, err := r.Seek(n+4, io.SeekCurrent); err != nil { // data and CRC
			return exifMeta{}, err
		}
	}
}

// webpEXIF looks for the EXIF chunk of an extended (VP8X) WebP. That chunk
// follows the image data, which is skipped with Seek, not read.
func webpEXIF(r io.ReadSeeker) (exifMeta, error) {
	if _, err := r.Seek(12, io.SeekStart); err != nil {
		return exifMeta{}, err
	}
	var hdr [9]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return exifMeta{}, err
	}
	const exifFlag = 0x08
	if string(hdr[:4]) != "VP8X" || hdr[8]&exifFlag == 0 {
		return exifMeta{}, nil // a simple WebP, or one without EXIF
	}
	n := int64(binary.LittleEndian.Uint32(hdr[4:8]))
	if _, err := r.Seek(12+8+n+n&1, io.SeekStart); err != nil {
		return exifMeta{}, err
	}
	for {
		if _, err := io.ReadFull(r, hdr[:8]); err != nil {
			if err == io.EOF {
				return exifMeta{}, nil
			}
			return exifMeta{}, err
		}
		n := int64(binary.LittleEndian.Uint32(hdr[4:8]))
		if string(hdr[:4]) == "EXIF" {
			return readEXIF(r, n)
		}
		if _, err := r.Seek(n+n&1, io.SeekCurrent); err != nil { // chunks are padded to even sizes
			return exifMeta{}, err
		}
	}
}
