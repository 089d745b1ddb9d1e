package photo

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"io"
)

// maxMetaChunk bounds how much of a PNG or WebP metadata chunk is read to
// look for the orientation; real EXIF blocks are a few kilobytes.
const maxMetaChunk = 1 << 20

var errNotJPEG = errors.New("no JPEG start-of-image marker")

// tiffOrientation returns the Orientation tag (0x0112) of IFD0 in a TIFF
// structure (the body of an EXIF block), or 0 when there is none. It never
// reads outside b, whatever offsets the block claims.
func tiffOrientation(b []byte) int {
	b = bytes.TrimPrefix(b, []byte("Exif\x00\x00"))
	if len(b) < 8 {
		return 0
	}
	var bo binary.ByteOrder
	switch string(b[:2]) {
	case "II":
		bo = binary.LittleEndian
	case "MM":
		bo = binary.BigEndian
	default:
		return 0
	}
	if bo.Uint16(b[2:]) != 42 {
		return 0
	}
	ifd := int64(bo.Uint32(b[4:]))
	if ifd < 8 || ifd+2 > int64(len(b)) {
		return 0
	}
	n := int64(bo.Uint16(b[ifd:]))
	for i := int64(0); i < n; i++ {
		e := ifd + 2 + 12*i
		if e+12 > int64(len(b)) {
			return 0
		}
		if bo.Uint16(b[e:]) != 0x0112 {
			continue
		}
		var v int
		switch typ := bo.Uint16(b[e+2:]); typ {
		case 3: // SHORT, as the standard says.
			v = int(bo.Uint16(b[e+8:]))
		case 4: // LONG, written by a few tools.
			v = int(bo.Uint32(b[e+8:]))
		default:
			return 0
		}
		if v < 1 || v > 8 {
			return 0
		}
		return v
	}
	return 0
}

// jpegOrientation walks a JPEG's marker segments up to the start of scan
// and returns the orientation from its EXIF APP1 segment, or 1 without one.
// It reads only the headers.
func jpegOrientation(r *bufio.Reader) (int, error) {
	var soi [2]byte
	if _, err := io.ReadFull(r, soi[:]); err != nil {
		return 0, err
	}
	if soi != [2]byte{0xff, 0xd8} {
		return 0, errNotJPEG
	}
	orientation := 0
	for {
		c, err := r.ReadByte()
		if err != nil {
			return 0, err
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
			return 0, err
		}
		switch {
		case m == 0x00 || m == 0x01 || (m >= 0xd0 && m <= 0xd8):
			continue // no length: stuffed byte, TEM, RSTn or SOI
		case m == 0xd9 || m == 0xda: // EOI or SOS: no more headers
			return max(orientation, 1), nil
		}
		var lb [2]byte
		if _, err := io.ReadFull(r, lb[:]); err != nil {
			return 0, err
		}
		n := int(binary.BigEndian.Uint16(lb[:])) - 2
		if n < 0 {
			return 0, errors.New("bad marker segment length")
		}
		if m == 0xe1 && orientation == 0 && n >= 14 {
			seg := make([]byte, n)
			if _, err := io.ReadFull(r, seg); err != nil {
				return 0, err
			}
			if bytes.HasPrefix(seg, []byte("Exif\x00\x00")) {
				orientation = tiffOrientation(seg)
			}
			continue
		}
		if _, err := r.Discard(n); err != nil {
			return 0, err
		}
	}
}

// pngOrientation looks for an eXIf chunk before the image data.
func pngOrientation(r io.ReadSeeker) (int, error) {
	if _, err := r.Seek(8, io.SeekStart); err != nil {
		return 1, err
	}
	var hdr [8]byte
	for {
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			return 1, err
		}
		n := int64(binary.BigEndian.Uint32(hdr[:4]))
		switch string(hdr[4:]) {
		case "IDAT", "IEND":
			return 1, nil
		case "eXIf":
			if n > maxMetaChunk {
				return 1, nil
			}
			b := make([]byte, n)
			if _, err := io.ReadFull(r, b); err != nil {
				return 1, err
			}
			return max(tiffOrientation(b), 1), nil
		}
		if _, err := r.Seek(n+4, io.SeekCurrent); err != nil { // data and CRC
			return 1, err
		}
	}
}

// webpOrientation looks for the EXIF chunk of an extended (VP8X) WebP. That
// chunk follows the image data, which is skipped with Seek, not read.
func webpOrientation(r io.ReadSeeker) (int, error) {
	if _, err := r.Seek(12, io.SeekStart); err != nil {
		return 1, err
	}
	var hdr [9]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return 1, err
	}
	const exifFlag = 0x08
	if string(hdr[:4]) != "VP8X" || hdr[8]&exifFlag == 0 {
		return 1, nil // a simple WebP, or one without EXIF
	}
	n := int64(binary.LittleEndian.Uint32(hdr[4:8]))
	if _, err := r.Seek(12+8+n+n&1, io.SeekStart); err != nil {
		return 1, err
	}
	for {
		if _, err := io.ReadFull(r, hdr[:8]); err != nil {
			if err == io.EOF {
				return 1, nil
			}
			return 1, err
		}
		n := int64(binary.LittleEndian.Uint32(hdr[4:8]))
		if string(hdr[:4]) == "EXIF" {
			if n > maxMetaChunk {
				return 1, nil
			}
			b := make([]byte, n)
			if _, err := io.ReadFull(r, b); err != nil {
				return 1, err
			}
			return max(tiffOrientation(b), 1), nil
		}
		if _, err := r.Seek(n+n&1, io.SeekCurrent); err != nil { // chunks are padded to even sizes
			return 1, err
		}
	}
}
