package photo

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// maxMetaBox bounds the HEIF "meta" box read into memory. An iPhone's is
// a few tens of kilobytes (it lists every 512x512 tile of the grid).
const maxMetaBox = 16 << 20

// box is one ISO base media box: its type and body.
type box struct {
	typ  string
	body []byte
}

// boxes splits b into the boxes it contains.
func boxes(b []byte) ([]box, error) {
	var out []box
	for len(b) > 0 {
		if len(b) < 8 {
			return nil, errors.New("truncated box header")
		}
		size := uint64(binary.BigEndian.Uint32(b))
		typ := string(b[4:8])
		hdr := uint64(8)
		switch size {
		case 0:
			size = uint64(len(b))
		case 1:
			if len(b) < 16 {
				return nil, errors.New("truncated box header")
			}
			size = binary.BigEndian.Uint64(b[8:])
			hdr = 16
		}
		if size < hdr || size > uint64(len(b)) {
			return nil, fmt.Errorf("box %q claims %d bytes, %d are left", typ, size, len(b))
		}
		out = append(out, box{typ: typ, body: b[hdr:size]})
		b = b[size:]
	}
	return out, nil
}

// probeHEIF reads the "meta" box of a HEIF file and reports the primary
// item's stored size (its "ispe" property) and orientation (its "irot" and
// "imir" properties, composed in the order the file lists them), and the
// date taken from the file's Exif item.
func probeHEIF(r io.ReadSeeker) (Info, error) {
	meta, err := readMetaBox(r)
	if err != nil {
		return Info{}, fmt.Errorf("%w: cannot read the HEIC header (%v); the file may be cut short, so copy it again from its source", ErrCorrupt, err)
	}
	info, exif, err := parseMeta(meta)
	if err != nil {
		return Info{}, fmt.Errorf("%w: bad HEIC header (%v); copy the file again from its source", ErrCorrupt, err)
	}
	// The date is a bonus: an Exif item that cannot be read leaves it
	// unknown. Its orientation is ignored, since irot and imir rule.
	if b := exif.read(r); len(b) >= 4 {
		// The item starts with the offset of the TIFF header after these
		// four bytes (usually 6, past "Exif\0\0").
		if off := int64(binary.BigEndian.Uint32(b)); off <= int64(len(b)-4) {
			info.Taken = parseEXIF(b[4+off:]).taken
		}
	}
	return info, nil
}

// heifExtent is one piece of an item's data: offset and length in the
// file, or in the meta box's idat when the item is built from there.
type heifExtent struct{ off, n uint64 }

// heifItem says where an item's data is.
type heifItem struct {
	extents []heifExtent
	idat    []byte // the idat box's body when the data lies there; else nil
	inIdat  bool
}

// read returns the item's data, or nil when it lies outside the file or
// the idat box, is larger than maxMetaChunk, or cannot be read.
func (it heifItem) read(r io.ReadSeeker) []byte {
	var total uint64
	for _, e := range it.extents {
		if e.n == 0 || e.n > maxMetaChunk || total+e.n > maxMetaChunk {
			return nil // a length of 0 means "to the end of the file"
		}
		total += e.n
	}
	out := make([]byte, 0, total)
	for _, e := range it.extents {
		if it.inIdat {
			if e.off > uint64(len(it.idat)) || e.n > uint64(len(it.idat))-e.off {
				return nil
			}
			out = append(out, it.idat[e.off:e.off+e.n]...)
			continue
		}
		if e.off > 1<<62 {
			return nil
		}
		if _, err := r.Seek(int64(e.off), io.SeekStart); err != nil {
			return nil
		}
		part := make([]byte, e.n)
		if _, err := io.ReadFull(r, part); err != nil {
			return nil
		}
		out = append(out, part...)
	}
	return out
}

// readMetaBox returns the body of the top-level "meta" box, skipping the
// others (the media data may be large) with Seek.
func readMetaBox(r io.ReadSeeker) ([]byte, error) {
	var off int64
	var hdr [16]byte
	for {
		if _, err := io.ReadFull(r, hdr[:8]); err != nil {
			if err == io.EOF {
				return nil, errors.New("no meta box")
			}
			return nil, err
		}
		size := int64(binary.BigEndian.Uint32(hdr[:4]))
		typ := string(hdr[4:8])
		hlen := int64(8)
		if size == 1 {
			if _, err := io.ReadFull(r, hdr[8:16]); err != nil {
				return nil, err
			}
			size = int64(binary.BigEndian.Uint64(hdr[8:16]))
			hlen = 16
		}
		if typ == "meta" {
			if size == 0 || size-hlen > maxMetaBox {
				return nil, fmt.Errorf("meta box of %d bytes", size)
			}
			if size < hlen {
				return nil, fmt.Errorf("meta box of %d bytes", size)
			}
			body := make([]byte, size-hlen)
			if _, err := io.ReadFull(r, body); err != nil {
				return nil, err
			}
			return body, nil
		}
		if size == 0 {
			return nil, errors.New("no meta box")
		}
		if size < hlen {
			return nil, fmt.Errorf("box %q of %d bytes", typ, size)
		}
		off += size
		if _, err := r.Seek(off, io.SeekStart); err != nil {
			return nil, err
		}
	}
}

// parseMeta reads pitm, ipco and ipma from a meta box body, and where the
// Exif item is (none when the file has none, or when iinf or iloc cannot
// be made sense of: the date is not worth refusing a photo for).
func parseMeta(meta []byte) (Info, heifItem, error) {
	info, err := parseMetaInfo(meta)
	if err != nil {
		return Info{}, heifItem{}, err
	}
	children, _ := boxes(meta[4:])
	var iinf, iloc, idat []byte
	for _, c := range children {
		switch c.typ {
		case "iinf":
			iinf = c.body
		case "iloc":
			iloc = c.body
		case "idat":
			idat = c.body
		}
	}
	id, ok := exifItemID(iinf)
	if !ok {
		return info, heifItem{}, nil
	}
	item, ok := locateItem(iloc, id)
	if !ok {
		return info, heifItem{}, nil
	}
	if item.inIdat {
		item.idat = idat
	}
	return info, item, nil
}

// exifItemID returns the id of the first item of type "Exif" listed in an
// iinf box body.
func exifItemID(iinf []byte) (uint32, bool) {
	if len(iinf) < 6 {
		return 0, false
	}
	rest := iinf[6:] // version, flags, 16-bit entry count
	if iinf[0] != 0 {
		if len(iinf) < 8 {
			return 0, false
		}
		rest = iinf[8:]
	}
	entries, err := boxes(rest)
	if err != nil {
		return 0, false
	}
	for _, e := range entries {
		// Only infe versions 2 and 3 name the item type with a 4CC.
		if e.typ != "infe" || len(e.body) < 4 {
			continue
		}
		var id uint32
		var typ []byte
		switch b := e.body; b[0] {
		case 2:
			if len(b) < 12 {
				continue
			}
			id, typ = uint32(binary.BigEndian.Uint16(b[4:])), b[8:12]
		case 3:
			if len(b) < 14 {
				continue
			}
			id, typ = binary.BigEndian.Uint32(b[4:]), b[10:14]
		default:
			continue
		}
		if string(typ) == "Exif" {
			return id, true
		}
	}
	return 0, false
}

// locateItem finds item id in an iloc box body. Items built from other
// items (construction method 2) or kept in other files are not followed.
func locateItem(iloc []byte, id uint32) (heifItem, bool) {
	b := iloc
	// take returns the next n-byte (0, 4 or 8) big-endian number.
	bad := false
	take := func(n int) uint64 {
		if bad || len(b) < n {
			bad = true
			return 0
		}
		var v uint64
		switch n {
		case 0:
		case 2:
			v = uint64(binary.BigEndian.Uint16(b))
		case 4:
			v = uint64(binary.BigEndian.Uint32(b))
		case 8:
			v = binary.BigEndian.Uint64(b)
		default:
			bad = true
			return 0
		}
		b = b[n:]
		return v
	}
	if len(b) < 6 {
		return heifItem{}, false
	}
	version := b[0]
	offSize, lenSize := int(b[4]>>4), int(b[4]&15)
	baseSize, indexSize := int(b[5]>>4), int(b[5]&15)
	if version != 1 && version != 2 {
		indexSize = 0
	}
	b = b[6:]
	idSize := 2
	if version == 2 {
		idSize = 4
	}
	count := take(idSize)
	for i := uint64(0); i < count && !bad; i++ {
		itemID := take(idSize)
		method := uint64(0)
		if version == 1 || version == 2 {
			method = take(2) & 15
		}
		dataRef := take(2)
		base := take(baseSize)
		n := take(2)
		var extents []heifExtent
		for j := uint64(0); j < n && !bad; j++ {
			take(indexSize)
			off, length := take(offSize), take(lenSize)
			extents = append(extents, heifExtent{off: base + off, n: length})
		}
		if bad {
			break
		}
		if uint32(itemID) != id {
			continue
		}
		if dataRef != 0 || method > 1 || len(extents) == 0 {
			return heifItem{}, false
		}
		return heifItem{extents: extents, inIdat: method == 1}, true
	}
	return heifItem{}, false
}

// parseMetaInfo reads pitm, ipco and ipma from a meta box body.
func parseMetaInfo(meta []byte) (Info, error) {
	if len(meta) < 4 {
		return Info{}, errors.New("short meta box")
	}
	children, err := boxes(meta[4:]) // after version and flags
	if err != nil {
		return Info{}, err
	}
	primary := uint32(0)
	havePrimary := false
	var props []box
	type assoc struct{ item, prop uint32 }
	var assocs []assoc
	for _, c := range children {
		switch c.typ {
		case "pitm":
			if len(c.body) < 6 {
				return Info{}, errors.New("short pitm box")
			}
			if c.body[0] == 0 {
				primary = uint32(binary.BigEndian.Uint16(c.body[4:]))
			} else {
				if len(c.body) < 8 {
					return Info{}, errors.New("short pitm box")
				}
				primary = binary.BigEndian.Uint32(c.body[4:])
			}
			havePrimary = true
		case "iprp":
			iprp, err := boxes(c.body)
			if err != nil {
				return Info{}, err
			}
			for _, p := range iprp {
				switch p.typ {
				case "ipco":
					if props, err = boxes(p.body); err != nil {
						return Info{}, err
					}
				case "ipma":
					as, err := parseIPMA(p.body)
					if err != nil {
						return Info{}, err
					}
					for _, a := range as {
						assocs = append(assocs, assoc{a[0], a[1]})
					}
				}
			}
		}
	}
	if !havePrimary {
		return Info{}, errors.New("no primary item")
	}
	info := Info{Format: FormatHEIC, Orientation: 1}
	haveSize := false
	for _, a := range assocs {
		if a.item != primary || a.prop == 0 || int(a.prop) > len(props) {
			continue
		}
		p := props[a.prop-1]
		switch p.typ {
		case "ispe":
			if len(p.body) < 12 {
				return Info{}, errors.New("short ispe box")
			}
			info.Width = int(binary.BigEndian.Uint32(p.body[4:]))
			info.Height = int(binary.BigEndian.Uint32(p.body[8:]))
			haveSize = true
		case "irot":
			if len(p.body) < 1 {
				return Info{}, errors.New("short irot box")
			}
			// irot turns anticlockwise by angle*90 degrees.
			t := [...]int{1, 8, 3, 6}[p.body[0]&3]
			info.Orientation = composeOrientation(info.Orientation, t)
		case "imir":
			if len(p.body) < 1 {
				return Info{}, errors.New("short imir box")
			}
			// Axis 0 mirrors about a vertical axis (left and right swap),
			// axis 1 about a horizontal one, as libheif reads it.
			t := 2
			if p.body[0]&1 == 1 {
				t = 4
			}
			info.Orientation = composeOrientation(info.Orientation, t)
		}
	}
	if !haveSize {
		return Info{}, errors.New("the primary image has no size (ispe) property")
	}
	return info, nil
}

// parseIPMA returns the (item, property index) pairs of an ipma box, in
// the file's order.
func parseIPMA(b []byte) ([][2]uint32, error) {
	short := errors.New("short ipma box")
	if len(b) < 8 {
		return nil, short
	}
	version := b[0]
	flags := uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
	n := binary.BigEndian.Uint32(b[4:])
	b = b[8:]
	var out [][2]uint32
	for i := uint32(0); i < n; i++ {
		var item uint32
		if version < 1 {
			if len(b) < 3 {
				return nil, short
			}
			item = uint32(binary.BigEndian.Uint16(b))
			b = b[2:]
		} else {
			if len(b) < 5 {
				return nil, short
			}
			item = binary.BigEndian.Uint32(b)
			b = b[4:]
		}
		count := int(b[0])
		b = b[1:]
		for j := 0; j < count; j++ {
			var prop uint32
			if flags&1 == 1 {
				if len(b) < 2 {
					return nil, short
				}
				prop = uint32(binary.BigEndian.Uint16(b)) & 0x7fff
				b = b[2:]
			} else {
				if len(b) < 1 {
					return nil, short
				}
				prop = uint32(b[0]) & 0x7f
				b = b[1:]
			}
			out = append(out, [2]uint32{item, prop})
		}
	}
	return out, nil
}
