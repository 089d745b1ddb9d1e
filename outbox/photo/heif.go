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
	if b := exif.read(r, maxMetaChunk); len(b) >= 4 {
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
// the idat box, is larger than limit bytes, or cannot be read.
func (it heifItem) read(r io.ReadSeeker, limit uint64) []byte {
	var total uint64
	for _, e := range it.extents {
		if e.n == 0 || e.n > limit || total+e.n > limit {
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
	m, err := parseHEIFMeta(meta)
	if err != nil {
		return Info{}, heifItem{}, err
	}
	info, err := m.primaryInfo()
	if err != nil {
		return Info{}, heifItem{}, err
	}
	id, ok := exifItemID(m.iinf)
	if !ok {
		return info, heifItem{}, nil
	}
	item, ok := m.locate(id)
	if !ok {
		return info, heifItem{}, nil
	}
	return info, item, nil
}

// heifMeta is what a HEIF meta box says about its items.
type heifMeta struct {
	primary uint32
	// props are the ipco box's children: property index i is props[i-1].
	props []box
	// assocs are the (item, property index) pairs of ipma, in its order.
	assocs [][2]uint32
	// The bodies of these boxes, nil when the box is absent.
	iinf, iloc, idat, iref []byte
}

// parseHEIFMeta reads pitm, ipco and ipma from a meta box body and keeps
// the boxes that say where the items are.
func parseHEIFMeta(meta []byte) (heifMeta, error) {
	var m heifMeta
	if len(meta) < 4 {
		return m, errors.New("short meta box")
	}
	children, err := boxes(meta[4:]) // after version and flags
	if err != nil {
		return m, err
	}
	havePrimary := false
	for _, c := range children {
		switch c.typ {
		case "pitm":
			if len(c.body) < 6 {
				return m, errors.New("short pitm box")
			}
			if c.body[0] == 0 {
				m.primary = uint32(binary.BigEndian.Uint16(c.body[4:]))
			} else {
				if len(c.body) < 8 {
					return m, errors.New("short pitm box")
				}
				m.primary = binary.BigEndian.Uint32(c.body[4:])
			}
			havePrimary = true
		case "iprp":
			iprp, err := boxes(c.body)
			if err != nil {
				return m, err
			}
			for _, p := range iprp {
				switch p.typ {
				case "ipco":
					if m.props, err = boxes(p.body); err != nil {
						return m, err
					}
				case "ipma":
					as, err := parseIPMA(p.body)
					if err != nil {
						return m, err
					}
					m.assocs = append(m.assocs, as...)
				}
			}
		case "iinf":
			m.iinf = c.body
		case "iloc":
			m.iloc = c.body
		case "idat":
			m.idat = c.body
		case "iref":
			m.iref = c.body
		}
	}
	if !havePrimary {
		return m, errors.New("no primary item")
	}
	return m, nil
}

// itemProps returns the properties of item id, in the order ipma lists
// them.
func (m heifMeta) itemProps(id uint32) []box {
	var out []box
	for _, a := range m.assocs {
		if a[0] == id && a[1] != 0 && int(a[1]) <= len(m.props) {
			out = append(out, m.props[a[1]-1])
		}
	}
	return out
}

// primaryInfo reports the primary item's stored size (its "ispe"
// property) and orientation (its "irot" and "imir" properties, composed
// in the order the file lists them).
func (m heifMeta) primaryInfo() (Info, error) {
	info := Info{Format: FormatHEIC, Orientation: 1}
	haveSize := false
	for _, p := range m.itemProps(m.primary) {
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

// heifInfe is one item of an iinf box: its id and its type.
type heifInfe struct {
	id  uint32
	typ string
}

// itemTypes returns the items listed in an iinf box body, in order; nil
// when the box cannot be read. Only infe versions 2 and 3 name the item
// type with a 4CC; other entries are left out.
func itemTypes(iinf []byte) []heifInfe {
	if len(iinf) < 6 {
		return nil
	}
	rest := iinf[6:] // version, flags, 16-bit entry count
	if iinf[0] != 0 {
		if len(iinf) < 8 {
			return nil
		}
		rest = iinf[8:]
	}
	entries, err := boxes(rest)
	if err != nil {
		return nil
	}
	var out []heifInfe
	for _, e := range entries {
		if e.typ != "infe" || len(e.body) < 4 {
			continue
		}
		switch b := e.body; b[0] {
		case 2:
			if len(b) >= 12 {
				out = append(out, heifInfe{uint32(binary.BigEndian.Uint16(b[4:])), string(b[8:12])})
			}
		case 3:
			if len(b) >= 14 {
				out = append(out, heifInfe{binary.BigEndian.Uint32(b[4:]), string(b[10:14])})
			}
		}
	}
	return out
}

// exifItemID returns the id of the first item of type "Exif" listed in an
// iinf box body.
func exifItemID(iinf []byte) (uint32, bool) {
	for _, it := range itemTypes(iinf) {
		if it.typ == "Exif" {
			return it.id, true
		}
	}
	return 0, false
}

// locate finds item id in the iloc box, with its idat when its data lies
// there. Items built from other items (construction method 2) or kept in
// other files are not followed.
func (m heifMeta) locate(id uint32) (heifItem, bool) {
	it, ok := locateItems(m.iloc)[id]
	if !ok || len(it.extents) == 0 {
		return heifItem{}, false
	}
	if it.inIdat {
		it.idat = m.idat
	}
	return it, true
}

// locateItems reads an iloc box body: where each item's data is, by id.
// The first entry of an id counts; an entry that cannot be followed
// (construction method 2, another file, no extents) is there without
// extents. Reading stops at the first entry cut short.
func locateItems(iloc []byte) map[uint32]heifItem {
	b := iloc
	// take returns the next n-byte (0, 2, 4 or 8) big-endian number.
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
		return nil
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
	out := map[uint32]heifItem{}
	count := take(idSize)
	for i := uint64(0); i < count && !bad; i++ {
		itemID := uint32(take(idSize))
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
		if _, seen := out[itemID]; seen {
			continue
		}
		if dataRef != 0 || method > 1 {
			extents = nil
		}
		out[itemID] = heifItem{extents: extents, inIdat: method == 1}
	}
	return out
}

// itemRefs returns the items that item from refers to with references of
// type typ (such as "dimg", the tiles of a grid), in the file's order;
// nil when there are none or the iref box cannot be read.
func itemRefs(iref []byte, typ string, from uint32) []uint32 {
	if len(iref) < 4 {
		return nil
	}
	idSize := 2
	if iref[0] != 0 {
		idSize = 4
	}
	refs, err := boxes(iref[4:])
	if err != nil {
		return nil
	}
	id := func(b []byte) uint32 {
		if idSize == 2 {
			return uint32(binary.BigEndian.Uint16(b))
		}
		return binary.BigEndian.Uint32(b)
	}
	for _, r := range refs {
		b := r.body
		if r.typ != typ || len(b) < idSize+2 || id(b) != from {
			continue
		}
		n := int(binary.BigEndian.Uint16(b[idSize:]))
		b = b[idSize+2:]
		if len(b) < n*idSize {
			return nil
		}
		out := make([]uint32, n)
		for i := range out {
			out[i] = id(b[i*idSize:])
		}
		return out
	}
	return nil
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
