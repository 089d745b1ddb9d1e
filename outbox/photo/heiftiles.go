package photo

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"io"
	"runtime"
	"sync"

	"github.com/gen2brain/heic"

	"github.com/sparkfamily/spark/outbox/photo/internal/heifwasm"
)

// maxHEICDecoders bounds how many HEVC tiles are decoded at once, each in
// its own instance of the WebAssembly decoder (its own linear memory, a
// few megabytes for a 512x512 tile): the memory of the tile decoders is
// at most this many instances, whatever the number of tiles.
const maxHEICDecoders = 4

// heifLayout is how the primary image of a HEIF file is stored, when it
// is a form decodeHEIFTiles reads: one HEVC image, or a grid of HEVC tiles
// of one size, row by row, cropped to the picture's size at the right
// and bottom edges.
type heifLayout struct {
	// width and height are the picture's, as stored (before irot and
	// imir).
	width, height int
	cols, rows    int
	tileW, tileH  int
	tiles         []heifTile // row by row
}

// heifTile is one HEVC image of a layout.
type heifTile struct {
	id   uint32 // its item id: a grid may use an image more than once
	hvcC []byte // the body of its hvcC property: parameter sets
	item heifItem
}

// heifTileLayout reads how the primary image is made. It answers false
// for what it does not follow (an overlay, a cropped or otherwise
// transformed tile, a picture that is not 4:2:0 or 4:2:2 or 4:4:4 HEVC),
// which is then left to libheif whole.
func heifTileLayout(m heifMeta, info Info, f io.ReadSeeker) (heifLayout, bool) {
	types := map[uint32]string{}
	for _, it := range itemTypes(m.iinf) {
		if _, seen := types[it.id]; !seen {
			types[it.id] = it.typ
		}
	}
	l := heifLayout{width: info.Width, height: info.Height}
	// The primary item may carry its size, orientation and colour;
	// anything else (clap, a crop) is for libheif.
	for _, p := range m.itemProps(m.primary) {
		switch p.typ {
		case "ispe", "irot", "imir", "colr", "pixi", "hvcC":
		default:
			return heifLayout{}, false
		}
	}
	var ids []uint32
	switch types[m.primary] {
	case "hvc1":
		l.cols, l.rows = 1, 1
		ids = []uint32{m.primary}
	case "grid":
		grid, ok := m.locate(m.primary)
		if !ok {
			return heifLayout{}, false
		}
		// The grid's description is a few bytes, in idat or the file.
		d := grid.read(f, 32)
		if len(d) < 8 || d[0] != 0 {
			return heifLayout{}, false
		}
		l.rows, l.cols = int(d[2])+1, int(d[3])+1
		var w, h int
		if d[1]&1 == 0 {
			w, h = int(binary.BigEndian.Uint16(d[4:])), int(binary.BigEndian.Uint16(d[6:]))
		} else {
			if len(d) < 12 {
				return heifLayout{}, false
			}
			w, h = int(binary.BigEndian.Uint32(d[4:])), int(binary.BigEndian.Uint32(d[8:]))
		}
		if w != info.Width || h != info.Height {
			return heifLayout{}, false
		}
		ids = itemRefs(m.iref, "dimg", m.primary)
		if len(ids) != l.rows*l.cols {
			return heifLayout{}, false
		}
	default:
		return heifLayout{}, false
	}
	var chroma byte
	for i, id := range ids {
		if types[id] != "hvc1" {
			return heifLayout{}, false
		}
		it, ok := m.locate(id)
		if !ok {
			return heifLayout{}, false
		}
		t := heifTile{id: id, item: it}
		var tw, th int
		for _, p := range m.itemProps(id) {
			switch p.typ {
			case "hvcC":
				t.hvcC = p.body
			case "ispe":
				if len(p.body) < 12 {
					return heifLayout{}, false
				}
				tw, th = int(binary.BigEndian.Uint32(p.body[4:])), int(binary.BigEndian.Uint32(p.body[8:]))
			case "irot", "imir", "colr", "pixi":
				// The primary's own transforms apply to the whole
				// picture; a tile's own would apply to the tile.
				if id != m.primary && (p.typ == "irot" || p.typ == "imir") {
					return heifLayout{}, false
				}
			default:
				return heifLayout{}, false
			}
		}
		// hvcC: chroma_format_idc is the low two bits of byte 16.
		if len(t.hvcC) < 23 || tw <= 0 || th <= 0 {
			return heifLayout{}, false
		}
		if i == 0 {
			l.tileW, l.tileH, chroma = tw, th, t.hvcC[16]&3
		} else if tw != l.tileW || th != l.tileH || t.hvcC[16]&3 != chroma {
			return heifLayout{}, false
		}
		l.tiles = append(l.tiles, t)
	}
	// 4:2:0, 4:2:2 or 4:4:4, with tiles that start on a chroma sample.
	switch {
	case chroma == 1 && l.tileW%2 == 0 && l.tileH%2 == 0:
	case chroma == 2 && l.tileW%2 == 0:
	case chroma == 3:
	default:
		return heifLayout{}, false
	}
	// The tiles cover the picture, and none lies wholly outside it: so
	// they hold less than a row and a column of tiles more than the
	// picture, which passed the pixel limit.
	if l.cols*l.tileW < l.width || l.rows*l.tileH < l.height ||
		(l.cols-1)*l.tileW >= l.width || (l.rows-1)*l.tileH >= l.height {
		return heifLayout{}, false
	}
	if l.cols == 1 && l.tileW > 2*l.width || l.rows == 1 && l.tileH > 2*l.height {
		return heifLayout{}, false
	}
	return l, true
}

// decodeHEIF decodes the HEIC file f. A single HEVC image or a grid of
// HEVC tiles comes back as stored, before irot and imir, so the caller
// applies info.Orientation on a smaller picture; the tiles of a grid are
// decoded at once by up to maxHEICDecoders decoder instances and pasted
// into one picture. Any other form is decoded whole by libheif, which
// applies irot and imir itself: the second result is then 1.
func decodeHEIF(ctx context.Context, f io.ReadSeeker, info Info) (image.Image, int, error) {
	if werr := heifwasm.Compile(); werr != nil {
		return nil, 0, fmt.Errorf("%w: the HEIC decoder cannot start (%v)", ErrUnsupported, werr)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, 0, &osError{err}
	}
	meta, err := readMetaBox(f)
	if err == nil {
		var m heifMeta
		if m, err = parseHEIFMeta(meta); err == nil {
			if l, ok := heifTileLayout(m, info, f); ok {
				img, err := decodeHEIFTiles(ctx, f, l)
				return img, info.Orientation, err
			}
		}
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, 0, &osError{err}
	}
	img, err := decodeWhole(f)
	if err != nil {
		return nil, 0, err
	}
	if heic.Dynamic() != nil {
		repairHEICCorner(img)
	}
	return img, 1, nil
}

// decodeWhole decodes a HEIC file with the heic module's own decoder
// (libheif, applying irot and imir), for the forms the tile path leaves to
// it. Its one-time compile panics if it fails: that is an error here.
func decodeWhole(f io.Reader) (img image.Image, err error) {
	defer func() {
		if r := recover(); r != nil {
			img, err = nil, fmt.Errorf("the HEIC decoder failed (%v)", r)
		}
	}()
	return heic.Decode(f)
}

// decodeHEIFTiles decodes the tiles of l and pastes them into one picture.
func decodeHEIFTiles(ctx context.Context, f io.ReadSeeker, l heifLayout) (image.Image, error) {
	// The coded data of every tile, read here at once so that the
	// decoders need not share the file: each image once, and no more in
	// all than the file holds.
	size, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		return nil, &osError{err}
	}
	data := make([][]byte, len(l.tiles))
	byID := map[uint32][]byte{}
	var total int64
	for i, t := range l.tiles {
		if b, ok := byID[t.id]; ok {
			data[i] = b
			continue
		}
		if data[i] = t.item.read(f, uint64(min(size, maxHEVCTile))); data[i] == nil {
			return nil, fmt.Errorf("tile %d of %d lies outside the file", i+1, len(l.tiles))
		}
		if total += int64(len(data[i])); total > size {
			return nil, fmt.Errorf("the tiles claim more data than the file holds")
		}
		byID[t.id] = data[i]
	}
	var (
		mu    sync.Mutex
		dst   *image.YCbCr
		first error
		next  int
	)
	// take hands out the next tile, or -1 when there is none or a
	// decoder has failed.
	take := func() int {
		mu.Lock()
		defer mu.Unlock()
		if next >= len(l.tiles) || first != nil {
			return -1
		}
		if err := ctx.Err(); err != nil {
			first = err
			return -1
		}
		next++
		return next - 1
	}
	fail := func(err error) {
		mu.Lock()
		defer mu.Unlock()
		if first == nil {
			first = err
		}
	}
	work := func() {
		// A decoder's panic on crafted input, in this goroutine, is the
		// tile's error.
		defer func() {
			if r := recover(); r != nil {
				fail(fmt.Errorf("the HEIC decoder failed (%v)", r))
			}
		}()
		for i := take(); i >= 0; i = take() {
			t := l.tiles[i]
			err := heifDecoders.Decode(ctx, heifSingleImage(t.hvcC, data[i], l.tileW, l.tileH), func(tile *image.YCbCr) error {
				if err := checkTileSize(tile, l.tileW, l.tileH); err != nil {
					return err
				}
				mu.Lock()
				if dst == nil {
					dst = image.NewYCbCr(image.Rect(0, 0, l.width, l.height), tile.SubsampleRatio)
				}
				same := tile.SubsampleRatio == dst.SubsampleRatio
				mu.Unlock()
				if !same {
					return errors.New("it has another chroma subsampling than the first")
				}
				// Tiles do not overlap: each worker writes its own part.
				pasteTile(dst, tile, (i%l.cols)*l.tileW, (i/l.cols)*l.tileH)
				return nil
			})
			if err != nil {
				fail(fmt.Errorf("tile %d of %d: %w", i+1, len(l.tiles), err))
				return
			}
		}
	}
	workers := min(runtime.GOMAXPROCS(0), maxHEICDecoders, len(l.tiles))
	var wg sync.WaitGroup
	for range workers - 1 {
		wg.Go(work)
	}
	work()
	wg.Wait()
	if first != nil {
		return nil, first
	}
	return dst, nil
}

// maxHEVCTile bounds the coded data of one HEVC image read into memory:
// an iPhone's 512x512 tile is some tens of kilobytes, a whole 50 MP
// picture coded as one image some tens of megabytes.
const maxHEVCTile = 256 << 20

// heifDecoders decodes the HEVC images of HEIC files: at most
// maxHEICDecoders instances of the WebAssembly decoder at once, each kept
// for the next tile (heifwasm), so that the memory of the tile decoders is
// bounded whatever the number of tiles or photos.
var heifDecoders = heifwasm.NewPool(maxHEICDecoders)

// checkTileSize checks that a decoded HEVC image has the size its header
// gave.
func checkTileSize(m *image.YCbCr, w, h int) error {
	if m.Rect.Dx() != w || m.Rect.Dy() != h {
		return fmt.Errorf("the header says %dx%d but the picture is %dx%d", w, h, m.Rect.Dx(), m.Rect.Dy())
	}
	return nil
}

// heifSingleImage returns a HEIF file whose primary image is the HEVC
// image of the given parameter sets and coded data, with no transform.
func heifSingleImage(hvcC, data []byte, w, h int) []byte {
	be := binary.BigEndian
	box := func(typ string, parts ...[]byte) []byte {
		n := 8
		for _, p := range parts {
			n += len(p)
		}
		out := be.AppendUint32(make([]byte, 0, n), uint32(n))
		out = append(out, typ...)
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	full := []byte{0, 0, 0, 0} // version 0, no flags
	ftyp := box("ftyp", []byte("heic\x00\x00\x00\x00mif1heic"))
	hdlr := box("hdlr", full, []byte{0, 0, 0, 0}, []byte("pict"), make([]byte, 12), []byte{0})
	pitm := box("pitm", full, []byte{0, 1})
	infe := box("infe", []byte{2, 0, 0, 0}, []byte{0, 1, 0, 0}, []byte("hvc1"), []byte{0})
	iinf := box("iinf", full, []byte{0, 1}, infe)
	ispe := box("ispe", full, be.AppendUint32(be.AppendUint32(nil, uint32(w)), uint32(h)))
	ipco := box("ipco", box("hvcC", hvcC), ispe)
	ipma := box("ipma", full, []byte{0, 0, 0, 1, 0, 1, 2, 0x81, 0x82})
	iprp := box("iprp", ipco, ipma)
	// iloc version 0, 4-byte offsets and lengths: one item, one extent.
	iloc := func(off uint32) []byte {
		b := []byte{0, 0, 0, 0, 0x44, 0x00, 0, 1, 0, 1, 0, 0, 0, 1}
		return box("iloc", b, be.AppendUint32(be.AppendUint32(nil, off), uint32(len(data))))
	}
	meta := box("meta", full, hdlr, pitm, iinf, iprp, iloc(0))
	meta = box("meta", full, hdlr, pitm, iinf, iprp, iloc(uint32(len(ftyp)+len(meta)+8)))
	out := make([]byte, 0, len(ftyp)+len(meta)+8+len(data))
	out = append(append(out, ftyp...), meta...)
	out = be.AppendUint32(out, uint32(8+len(data)))
	out = append(out, "mdat"...)
	return append(out, data...)
}

// pasteTile copies tile into dst with its top left corner at (x0, y0),
// cropped to dst. x0 and y0 fall on chroma samples.
func pasteTile(dst, tile *image.YCbCr, x0, y0 int) {
	w := min(tile.Rect.Dx(), dst.Rect.Dx()-x0)
	h := min(tile.Rect.Dy(), dst.Rect.Dy()-y0)
	for y := 0; y < h; y++ {
		copy(dst.Y[dst.YOffset(x0, y0+y):][:w], tile.Y[y*tile.YStride:][:w])
	}
	cw, ch := chromaSize(w, h, dst.SubsampleRatio)
	cx, cy := chromaOrigin(x0, y0, dst.SubsampleRatio)
	for y := 0; y < ch; y++ {
		o := (cy+y)*dst.CStride + cx
		copy(dst.Cb[o:][:cw], tile.Cb[y*tile.CStride:][:cw])
		copy(dst.Cr[o:][:cw], tile.Cr[y*tile.CStride:][:cw])
	}
}

// chromaOrigin is where pixel (x, y), on a chroma sample, is in the
// chroma planes.
func chromaOrigin(x, y int, r image.YCbCrSubsampleRatio) (int, int) {
	switch r {
	case image.YCbCrSubsampleRatio420:
		return x / 2, y / 2
	case image.YCbCrSubsampleRatio422:
		return x / 2, y
	}
	return x, y
}
