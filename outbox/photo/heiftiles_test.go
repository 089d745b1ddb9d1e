package photo

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"image"
	"os"
	"path/filepath"
	"testing"

	"github.com/gen2brain/heic"
)

// tileLayout reads the layout of the HEIC file b's primary image, and
// returns it with a reader of b for its tiles' data.
func tileLayout(tb testing.TB, b []byte) (heifLayout, bool, *bytes.Reader) {
	tb.Helper()
	r := bytes.NewReader(b)
	meta, err := readMetaBox(r)
	if err != nil {
		tb.Fatal(err)
	}
	m, err := parseHEIFMeta(meta)
	if err != nil {
		tb.Fatal(err)
	}
	info, err := m.primaryInfo()
	if err != nil {
		tb.Fatal(err)
	}
	l, ok := heifTileLayout(m, info, r)
	return l, ok, r
}

// quadrantsTile returns the one HEVC image of testdata/quadrants.heic:
// its parameter sets, its coded data and its size.
func quadrantsTile(tb testing.TB) (hvcC, data []byte, w, h int) {
	tb.Helper()
	l, ok, r := tileLayout(tb, readTestdata(tb, "quadrants.heic"))
	if !ok || len(l.tiles) != 1 {
		tb.Fatalf("quadrants.heic: layout %+v, %v; want one HEVC image", l, ok)
	}
	return l.tiles[0].hvcC, l.tiles[0].item.read(r, maxHEVCTile), l.tileW, l.tileH
}

// decodeHEVC decodes one HEVC image of w by h pixels on its own, as the
// tiles are, given its
// parameter sets (an hvcC property) and its coded data, with the
// WebAssembly libheif: it wraps them into the smallest HEIF file that
// holds them.
func decodeHEVC(hvcC, data []byte, w, h int) (*image.YCbCr, error) {
	var m *image.YCbCr
	err := heifDecoders.Decode(context.Background(), heifSingleImage(hvcC, data, w, h), func(tile *image.YCbCr) error {
		if err := checkTileSize(tile, w, h); err != nil {
			return err
		}
		m = image.NewYCbCr(tile.Rect, tile.SubsampleRatio)
		pasteTile(m, tile, 0, 0)
		return nil
	})
	return m, err
}

// heifGrid returns a HEIC file whose primary image is a grid of cols by
// rows copies of one HEVC tile, cropped to w by h, turned by irot (the
// irot box's angle, -1 for none). The grid's description lies in idat,
// the tile's data in mdat, as an iPhone writes them.
func heifGrid(hvcC, data []byte, tw, th, cols, rows, w, h, irot int) []byte {
	be := binary.BigEndian
	infe := func(id uint16, typ string) []byte {
		return heifBox("infe", []byte{2, 0, 0, 0}, be.AppendUint16(nil, id), []byte{0, 0}, []byte(typ+"\x00"))
	}
	ispe := func(w, h int) []byte {
		return heifBox("ispe", []byte{0, 0, 0, 0}, be.AppendUint32(be.AppendUint32(nil, uint32(w)), uint32(h)))
	}
	grid := []byte{0, 0, byte(rows - 1), byte(cols - 1)}
	grid = be.AppendUint16(be.AppendUint16(grid, uint16(w)), uint16(h))
	dimg := be.AppendUint16(be.AppendUint16(nil, 1), uint16(cols*rows))
	for range cols * rows {
		dimg = be.AppendUint16(dimg, 2)
	}
	props := [][]byte{heifBox("hvcC", hvcC), ispe(tw, th), ispe(w, h)}
	gridProps := []byte{0x83}
	if irot >= 0 {
		props = append(props, heifBox("irot", []byte{byte(irot)}))
		gridProps = append(gridProps, 0x84)
	}
	ipma := []byte{0, 0, 0, 0, 0, 0, 0, 2}
	ipma = append(append(be.AppendUint16(ipma, 1), byte(len(gridProps))), gridProps...)
	ipma = append(be.AppendUint16(ipma, 2), 2, 0x81, 0x82)
	build := func(off uint32) []byte {
		// iloc version 1: 4-byte offsets and lengths, then per item
		// its id, construction method, data reference, extents.
		iloc := []byte{1, 0, 0, 0, 0x44, 0x00, 0, 2}
		iloc = append(iloc, 0, 1, 0, 1, 0, 0, 0, 1)
		iloc = be.AppendUint32(be.AppendUint32(iloc, 0), uint32(len(grid)))
		iloc = append(iloc, 0, 2, 0, 0, 0, 0, 0, 1)
		iloc = be.AppendUint32(be.AppendUint32(iloc, off), uint32(len(data)))
		return heifBox("meta", []byte{0, 0, 0, 0},
			heifBox("hdlr", make([]byte, 8), []byte("pict"), make([]byte, 13)),
			heifBox("pitm", []byte{0, 0, 0, 0, 0, 1}),
			heifBox("iinf", []byte{0, 0, 0, 0, 0, 2}, infe(1, "grid"), infe(2, "hvc1")),
			heifBox("iref", []byte{0, 0, 0, 0}, heifBox("dimg", dimg)),
			heifBox("iprp", heifBox("ipco", props...), heifBox("ipma", ipma)),
			heifBox("iloc", iloc),
			heifBox("idat", grid))
	}
	ftyp := heifFtyp()
	meta := build(0)
	meta = build(uint32(len(ftyp) + len(meta) + 8))
	out := append(ftyp, meta...)
	return append(out, heifBox("mdat", data)...)
}

// TestDecodeHEIF_OneImage checks that an HEVC image decoded on its own, as
// the tiles are, is the picture libheif makes of the whole file.
func TestDecodeHEIF_OneImage(t *testing.T) {
	b := readTestdata(t, "quadrants.heic")
	info, err := Probe(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	got, orientation, err := decodeHEIF(context.Background(), bytes.NewReader(b), info)
	if err != nil {
		t.Fatal(err)
	}
	want, err := heic.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if heic.Dynamic() != nil {
		repairHEICCorner(want)
	}
	if orientation != 1 {
		t.Errorf("orientation %d, want 1", orientation)
	}
	if p := PSNR(got, want); p < 100 {
		t.Errorf("PSNR %.1f dB against libheif's picture of the whole file, want the same picture", p)
	}
}

// TestDecodeHEIF_Grid decodes a grid of 3 by 2 copies of a tile, cropped
// and turned, and checks each tile landed in its place, as stored, with
// the turn left to the caller; SmallCopy and Decode then turn it.
func TestDecodeHEIF_Grid(t *testing.T) {
	hvcC, data, tw, th := quadrantsTile(t)
	tile, err := decodeHEVC(hvcC, data, tw, th)
	if err != nil {
		t.Fatal(err)
	}
	const cols, rows = 3, 2
	w, h := cols*tw-20, rows*th-10 // the last column and row cropped
	file := heifGrid(hvcC, data, tw, th, cols, rows, w, h, 1)
	info, err := Probe(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	if info.Width != w || info.Height != h || info.Orientation != 8 {
		t.Fatalf("Probe = %+v, want %dx%d, orientation 8", info, w, h)
	}
	img, orientation, err := decodeHEIF(context.Background(), bytes.NewReader(file), info)
	if err != nil {
		t.Fatal(err)
	}
	if orientation != 8 {
		t.Errorf("orientation %d, want 8: the grid comes back as stored", orientation)
	}
	m, ok := img.(*image.YCbCr)
	if !ok || m.Rect != image.Rect(0, 0, w, h) {
		t.Fatalf("decoded %T %v, want a %dx%d YCbCr", img, img.Bounds(), w, h)
	}
	for r := 0; r < rows; r++ {
		for c := 0; c < cols; c++ {
			part := m.SubImage(image.Rect(c*tw, r*th, min(c*tw+tw, w), min(r*th+th, h)))
			want := tile.SubImage(image.Rect(0, 0, part.Bounds().Dx(), part.Bounds().Dy()))
			if p := PSNR(part, want); p < 100 {
				t.Errorf("tile (%d, %d): PSNR %.1f dB against the tile, want the same picture", c, r, p)
			}
		}
	}

	// Upright through the public paths.
	small, res := smallCopy(t, "grid.heic", file, Options{MaxEdge: 64})
	if res.Height != 64 || res.Width >= res.Height {
		t.Errorf("small copy %dx%d, want a portrait 64 high", res.Width, res.Height)
	}
	checkLooksLike(t, small, Reference(orientImage(m, 8), 1, 64))
	full, _, err := Decode(context.Background(), writeFile(t, "grid.heic", file), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if full.Bounds() != image.Rect(0, 0, h, w) {
		t.Errorf("Decode: %v, want upright %dx%d", full.Bounds(), h, w)
	}
}

// TestDecodeHEIF_GridPixelLimit checks a grid is refused before any
// decoding when its size passes the limit, whatever its tiles.
func TestDecodeHEIF_GridPixelLimit(t *testing.T) {
	hvcC, data, tw, th := quadrantsTile(t)
	file := heifGrid(hvcC, data, tw, th, 2, 2, 2*tw, 2*th, -1)
	path := writeFile(t, "big.heic", file)
	_, err := SmallCopy(context.Background(), path, &bytes.Buffer{}, Options{MaxPixels: int64(4*tw*th - 1)})
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("SmallCopy() error = %v, want ErrTooLarge", err)
	}
}

// FuzzHEIFLayout feeds the tile layout reader damaged HEIC headers: it
// must not panic, and a layout it accepts has tiles that cover the picture
// without one wholly outside it.
func FuzzHEIFLayout(f *testing.F) {
	hvcC, data, tw, th := quadrantsTile(f)
	f.Add(readTestdata(f, "quadrants.heic"))
	f.Add(heifGrid(hvcC, data, tw, th, 3, 2, 3*tw-20, 2*th-10, 1))
	f.Add(heifGrid(hvcC, data, tw, th, 1, 1, tw, th, -1))
	f.Fuzz(func(t *testing.T, b []byte) {
		r := bytes.NewReader(b)
		info, err := Probe(r)
		if err != nil || info.Format != FormatHEIC {
			return
		}
		meta, err := readMetaBox(r)
		if err != nil {
			return
		}
		m, err := parseHEIFMeta(meta)
		if err != nil {
			return
		}
		l, ok := heifTileLayout(m, info, r)
		if !ok {
			return
		}
		if len(l.tiles) != l.cols*l.rows || l.cols*l.tileW < l.width || l.rows*l.tileH < l.height ||
			(l.cols-1)*l.tileW >= l.width || (l.rows-1)*l.tileH >= l.height {
			t.Fatalf("layout %+v for a %dx%d picture", l, info.Width, info.Height)
		}
	})
}

// TestDecodeHEIF_SharedPhotoTiles decodes the real iPhone photo (a grid
// of 48 tiles) by its tiles in parallel, through the pool of decoder
// instances, and checks it is the picture made by decoding each tile on
// its own with the heic module, one fresh module a tile, as before the
// pool.
func TestDecodeHEIF_SharedPhotoTiles(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: decoding the photo twice takes seconds")
	}
	b, err := os.ReadFile(filepath.Join(sharedPhotos(t), "iphone13promax_4032x3024_orient6.heic"))
	if err != nil {
		t.Fatal(err)
	}
	l, ok, r := tileLayout(t, b)
	if !ok || len(l.tiles) < 2 {
		t.Fatalf("layout %+v, %v; want a grid of tiles", l, ok)
	}
	got, err := decodeHEIFTiles(context.Background(), r, l)
	if err != nil {
		t.Fatal(err)
	}
	want := image.NewYCbCr(image.Rect(0, 0, l.width, l.height), got.(*image.YCbCr).SubsampleRatio)
	for i, tile := range l.tiles {
		img, err := heic.Decode(bytes.NewReader(heifSingleImage(tile.hvcC, tile.item.read(r, maxHEVCTile), l.tileW, l.tileH)))
		if err != nil {
			t.Fatalf("tile %d: %v", i, err)
		}
		repairHEICCorner(img)
		pasteTile(want, img.(*image.YCbCr), (i%l.cols)*l.tileW, (i/l.cols)*l.tileH)
	}
	// repairHEICCorner makes up the first pixels of each tile's top row:
	// leave those rows out of the comparison.
	for y := 0; y < l.height; y++ {
		if y%l.tileH == 0 {
			continue
		}
		for x := 0; x < l.width; x++ {
			if g, w := got.(*image.YCbCr).YCbCrAt(x, y), want.YCbCrAt(x, y); g != w {
				t.Fatalf("pixel (%d, %d) is %v, want %v", x, y, g, w)
			}
		}
	}
}
