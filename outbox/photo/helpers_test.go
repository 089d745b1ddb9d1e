package photo

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/disintegration/imaging"
)

//go:generate sh testdata/gen.sh

// The test pictures have four coloured quadrants, so a test can tell
// which way up a picture came out.
var (
	red   = color.NRGBA{255, 0, 0, 255}
	green = color.NRGBA{0, 255, 0, 255}
	blue  = color.NRGBA{0, 0, 255, 255}
	white = color.NRGBA{255, 255, 255, 255}
)

// quadrants returns a w by h picture: red top left, green top right, blue
// bottom left, white bottom right.
func quadrants(w, h int) *image.NRGBA {
	m := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := white
			switch {
			case x < w/2 && y < h/2:
				c = red
			case y < h/2:
				c = green
			case x < w/2:
				c = blue
			}
			m.SetNRGBA(x, y, c)
		}
	}
	return m
}

// orient applies EXIF orientation o to m, the way a viewer shows it.
func orient(m *image.NRGBA, o int) *image.NRGBA {
	switch o {
	case 2:
		return imaging.FlipH(m)
	case 3:
		return imaging.Rotate180(m)
	case 4:
		return imaging.FlipV(m)
	case 5:
		return imaging.Transpose(m)
	case 6:
		return imaging.Rotate270(m) // imaging turns anticlockwise
	case 7:
		return imaging.Transverse(m)
	case 8:
		return imaging.Rotate90(m)
	}
	return m
}

// stored returns the picture a camera stores with orientation o so that
// it shows as upright: the inverse of orient.
func stored(upright *image.NRGBA, o int) *image.NRGBA {
	inverse := [9]int{0, 1, 2, 3, 4, 5, 8, 7, 6}
	return orient(upright, inverse[o])
}

// quadrantColors samples the centre of each quadrant of m: top left, top
// right, bottom left, bottom right.
func quadrantColors(m image.Image) [4]color.NRGBA {
	b := m.Bounds()
	w, h := b.Dx(), b.Dy()
	at := func(x, y int) color.NRGBA {
		return color.NRGBAModel.Convert(m.At(b.Min.X+x, b.Min.Y+y)).(color.NRGBA)
	}
	return [4]color.NRGBA{at(w/4, h/4), at(3*w/4, h/4), at(w/4, 3*h/4), at(3*w/4, 3*h/4)}
}

// checkLooksLike fails unless got's quadrants have want's colours, within
// what JPEG compression changes.
func checkLooksLike(tb testing.TB, got, want image.Image) {
	tb.Helper()
	g, w := quadrantColors(got), quadrantColors(want)
	near := func(a, b uint8) bool { return int(a)-int(b) < 48 && int(b)-int(a) < 48 }
	for i := range g {
		if !near(g[i].R, w[i].R) || !near(g[i].G, w[i].G) || !near(g[i].B, w[i].B) {
			tb.Fatalf("quadrant colours (TL, TR, BL, BR) = %v, want %v: the picture is not upright", g, w)
		}
	}
}

// byteOrder is what binary.LittleEndian and binary.BigEndian both are.
type byteOrder interface {
	binary.ByteOrder
	binary.AppendByteOrder
}

// testTag is one IFD entry for buildTIFF; data longer than four bytes is
// placed after the IFDs.
type testTag struct {
	tag, typ uint16
	count    uint32
	data     []byte
}

// shortTag is a SHORT entry.
func shortTag(tag uint16, v int, bo byteOrder) testTag {
	return testTag{tag, 3, 1, bo.AppendUint16(nil, uint16(v))}
}

// asciiTag is an ASCII entry with its terminating NUL, as EXIF writes it.
func asciiTag(tag uint16, s string) testTag {
	return testTag{tag, 2, uint32(len(s) + 1), append([]byte(s), 0)}
}

// buildTIFF returns a TIFF structure (an EXIF block without "Exif\0\0")
// whose IFD0 holds ifd0 and, when exif is not empty, a pointer to an Exif
// sub-IFD holding exif.
func buildTIFF(bo byteOrder, ifd0, exif []testTag) []byte {
	n0 := len(ifd0)
	if len(exif) > 0 {
		n0++
	}
	exifOff := 8 + 2 + 12*n0 + 4
	dataOff := exifOff
	if len(exif) > 0 {
		dataOff += 2 + 12*len(exif) + 4
	}
	var data []byte
	var out []byte
	if bo == binary.LittleEndian {
		out = append(out, "II"...)
	} else {
		out = append(out, "MM"...)
	}
	out = bo.AppendUint16(out, 42)
	out = bo.AppendUint32(out, 8)
	writeIFD := func(tags []testTag) {
		out = bo.AppendUint16(out, uint16(len(tags)))
		for _, t := range tags {
			out = bo.AppendUint16(out, t.tag)
			out = bo.AppendUint16(out, t.typ)
			out = bo.AppendUint32(out, t.count)
			if len(t.data) <= 4 {
				out = append(out, t.data...)
				out = append(out, make([]byte, 4-len(t.data))...)
				continue
			}
			out = bo.AppendUint32(out, uint32(dataOff+len(data)))
			data = append(data, t.data...)
			if len(data)%2 == 1 {
				data = append(data, 0) // values start on a word boundary
			}
		}
		out = bo.AppendUint32(out, 0) // no next IFD
	}
	if len(exif) > 0 {
		ifd0 = append(append([]testTag{}, ifd0...), testTag{0x8769, 4, 1, bo.AppendUint32(nil, uint32(exifOff))})
	}
	writeIFD(ifd0)
	if len(exif) > 0 {
		writeIFD(exif)
	}
	return append(out, data...)
}

// app1 wraps a TIFF structure into a JPEG APP1 EXIF segment.
func app1(tiff []byte) []byte {
	body := append([]byte("Exif\x00\x00"), tiff...)
	seg := []byte{0xff, 0xe1, 0, 0}
	binary.BigEndian.PutUint16(seg[2:], uint16(len(body)+2))
	return append(seg, body...)
}

// exifSegment returns a JPEG APP1 segment holding an EXIF block whose IFD0
// has one entry, the orientation.
func exifSegment(o int, bo binary.ByteOrder) []byte {
	abo := bo.(byteOrder)
	return app1(buildTIFF(abo, []testTag{shortTag(0x112, o, abo)}, nil))
}

// encodeJPEG encodes m and, when o > 0, puts an EXIF orientation right
// after the start-of-image marker.
func encodeJPEG(tb testing.TB, m image.Image, o int, bo binary.ByteOrder) []byte {
	tb.Helper()
	if o == 0 {
		return encodeJPEGWith(tb, m, nil)
	}
	return encodeJPEGWith(tb, m, exifSegment(o, bo))
}

// encodeJPEGWith encodes m and puts the given segments right after the
// start-of-image marker.
func encodeJPEGWith(tb testing.TB, m image.Image, segments ...[]byte) []byte {
	tb.Helper()
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, m, &jpeg.Options{Quality: 95}); err != nil {
		tb.Fatal(err)
	}
	b := buf.Bytes()
	out := append([]byte{}, b[:2]...)
	for _, s := range segments {
		out = append(out, s...)
	}
	return append(out, b[2:]...)
}

func encodePNG(tb testing.TB, m image.Image) []byte {
	tb.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, m); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// pngChunk makes a PNG chunk with its CRC.
func pngChunk(typ string, data []byte) []byte {
	out := binary.BigEndian.AppendUint32(nil, uint32(len(data)))
	out = append(out, typ...)
	out = append(out, data...)
	return binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(append([]byte(typ), data...)))
}

// pngBomb is a tiny PNG whose header claims w by h pixels.
func pngBomb(w, h int) []byte {
	ihdr := binary.BigEndian.AppendUint32(nil, uint32(w))
	ihdr = binary.BigEndian.AppendUint32(ihdr, uint32(h))
	ihdr = append(ihdr, 8, 2, 0, 0, 0) // 8-bit RGB
	out := []byte("\x89PNG\r\n\x1a\n")
	out = append(out, pngChunk("IHDR", ihdr)...)
	out = append(out, pngChunk("IDAT", []byte{0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01})...)
	return append(out, pngChunk("IEND", nil)...)
}

// withEXIFChunk inserts an eXIf chunk with orientation o after IHDR.
func withEXIFChunk(p []byte, o int) []byte {
	return withEXIFChunkTIFF(p, buildTIFF(binary.BigEndian, []testTag{shortTag(0x112, o, binary.BigEndian)}, nil))
}

// withEXIFChunkTIFF inserts an eXIf chunk holding tiff after IHDR.
func withEXIFChunkTIFF(p, tiff []byte) []byte {
	at := 8 + 8 + 13 + 4 // signature, IHDR
	out := append([]byte{}, p[:at]...)
	out = append(out, pngChunk("eXIf", tiff)...)
	return append(out, p[at:]...)
}

// jpegBomb is a JPEG header whose frame claims w by h pixels.
func jpegBomb(w, h int) []byte {
	sof := []byte{0xff, 0xc0, 0, 17, 8, byte(h >> 8), byte(h), byte(w >> 8), byte(w), 3,
		1, 0x22, 0, 2, 0x11, 0, 3, 0x11, 0}
	sos := []byte{0xff, 0xda, 0, 12, 3, 1, 0x00, 2, 0x11, 3, 0x11, 0, 63, 0}
	out := append([]byte{0xff, 0xd8}, sof...)
	out = append(out, sos...)
	return append(out, 0x00, 0x00, 0xff, 0xd9)
}

// webpWithEXIF wraps a simple lossless WebP (one VP8L chunk) into an
// extended one with an EXIF chunk after the image data, where the format
// puts it.
func webpWithEXIF(tb testing.TB, simple []byte, w, h, o int) []byte {
	tb.Helper()
	return webpWithEXIFBlock(tb, simple, w, h, exifSegment(o, binary.LittleEndian)[4:])
}

// webpWithEXIFBlock is webpWithEXIF with the EXIF chunk's body given.
func webpWithEXIFBlock(tb testing.TB, simple []byte, w, h int, exif []byte) []byte {
	tb.Helper()
	if string(simple[12:16]) != "VP8L" {
		tb.Fatalf("want a VP8L WebP, got %q", simple[12:16])
	}
	chunk := func(typ string, data []byte) []byte {
		out := append([]byte(typ), binary.LittleEndian.AppendUint32(nil, uint32(len(data)))...)
		out = append(out, data...)
		if len(data)%2 == 1 {
			out = append(out, 0)
		}
		return out
	}
	vp8x := []byte{0x08 | 0x10, 0, 0, 0} // EXIF and alpha flags
	vp8x = append(vp8x, byte(w-1), byte((w-1)>>8), byte((w-1)>>16), byte(h-1), byte((h-1)>>8), byte((h-1)>>16))
	body := []byte("WEBP")
	body = append(body, chunk("VP8X", vp8x)...)
	body = append(body, simple[12:]...)
	body = append(body, chunk("EXIF", exif)...)
	return append(append([]byte("RIFF"), binary.LittleEndian.AppendUint32(nil, uint32(len(body)))...), body...)
}

// heifBox makes an ISO base media box.
func heifBox(typ string, parts ...[]byte) []byte {
	var body []byte
	for _, p := range parts {
		body = append(body, p...)
	}
	out := binary.BigEndian.AppendUint32(nil, uint32(8+len(body)))
	return append(append(out, typ...), body...)
}

// heifHeader is the start of a HEIC file whose primary item (id 1) has an
// ispe of w by h and then the given transform properties ("irot" with its
// byte, "imir" with its byte), in order. It has no image data: enough for
// Probe and for the pixel limit.
func heifHeader(w, h int, transforms ...[2]any) []byte {
	meta := heifBox("meta", append([][]byte{{0, 0, 0, 0}}, heifMetaChildren(w, h, transforms...)...)...)
	return append(heifFtyp(), meta...)
}

func heifFtyp() []byte { return heifBox("ftyp", []byte("heic\x00\x00\x00\x00mif1heic")) }

// heifMetaChildren are the boxes of heifHeader's meta box.
func heifMetaChildren(w, h int, transforms ...[2]any) [][]byte {
	ispe := append([]byte{0, 0, 0, 0}, binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, uint32(w)), uint32(h))...)
	props := [][]byte{heifBox("ispe", ispe)}
	for _, t := range transforms {
		props = append(props, heifBox(t[0].(string), []byte{t[1].(byte)}))
	}
	ipma := []byte{0, 0, 0, 0, 0, 0, 0, 1, 0, 1, byte(len(props))}
	for i := range props {
		ipma = append(ipma, byte(0x80|(i+1)))
	}
	return [][]byte{
		heifBox("hdlr", make([]byte, 8), []byte("pict"), make([]byte, 13)),
		heifBox("pitm", []byte{0, 0, 0, 0, 0, 1}),
		heifBox("iprp", heifBox("ipco", props...), heifBox("ipma", ipma)),
	}
}

// heifWithExif is heifHeader plus an Exif item (id 2) whose data is
// payload: in an mdat box after the meta box (iloc construction method 0,
// a file offset), or in the meta box's idat (method 1). A HEIF Exif item
// starts with the 32-bit offset of the TIFF header after those four bytes.
func heifWithExif(w, h int, payload []byte, inIdat bool) []byte {
	infe := func(id uint16, typ string) []byte {
		b := append([]byte{2, 0, 0, 0}, binary.BigEndian.AppendUint16(nil, id)...)
		return heifBox("infe", append(append(b, 0, 0), typ+"\x00"...))
	}
	iinf := heifBox("iinf", []byte{0, 0, 0, 0, 0, 2}, infe(1, "hvc1"), infe(2, "Exif"))
	method := byte(0)
	if inIdat {
		method = 1
	}
	build := func(off uint32) []byte {
		iloc := []byte{1, 0, 0, 0, 0x44, 0x00, 0, 1, 0, 2, 0, method, 0, 0, 0, 1}
		iloc = binary.BigEndian.AppendUint32(iloc, off)
		iloc = binary.BigEndian.AppendUint32(iloc, uint32(len(payload)))
		kids := append([][]byte{{0, 0, 0, 0}}, heifMetaChildren(w, h)...)
		kids = append(kids, iinf, heifBox("iloc", iloc))
		if inIdat {
			kids = append(kids, heifBox("idat", payload))
		}
		return heifBox("meta", kids...)
	}
	ftyp := heifFtyp()
	if inIdat {
		return append(ftyp, build(0)...)
	}
	meta := build(0)
	meta = build(uint32(len(ftyp) + len(meta) + 8))
	out := append(ftyp, meta...)
	return append(out, heifBox("mdat", payload)...)
}

// heifExifPayload is an Exif item's data holding tiff, as iPhones write
// it: offset 6, then "Exif\0\0", then the TIFF structure.
func heifExifPayload(tiff []byte) []byte {
	return append([]byte{0, 0, 0, 6, 'E', 'x', 'i', 'f', 0, 0}, tiff...)
}

// noisy returns a picture with smooth gradients, edges and grain, closer
// to a photo than flat quadrants, for measuring the resize.
func noisy(w, h int) *image.YCbCr {
	m := image.NewYCbCr(image.Rect(0, 0, w, h), image.YCbCrSubsampleRatio420)
	r := rand.New(rand.NewPCG(1, 2))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			v := (x*255/w+y*128/h)/2 + r.IntN(24)
			if (x/37+y/29)%2 == 0 {
				v += 40
			}
			m.Y[m.YOffset(x, y)] = uint8(min(v, 255))
			ci := m.COffset(x, y)
			m.Cb[ci] = uint8(96 + x*64/w)
			m.Cr[ci] = uint8(160 - y*64/h)
		}
	}
	return m
}

// writeFile writes b to a new file in a temporary folder and returns its
// path.
func writeFile(tb testing.TB, name string, b []byte) string {
	tb.Helper()
	p := filepath.Join(tb.TempDir(), name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		tb.Fatal(err)
	}
	return p
}

// photoFiles returns the files of dir whose extension is one of exts, in
// any case; it fails tb if there is none.
func photoFiles(tb testing.TB, dir string, exts ...string) []string {
	tb.Helper()
	all, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil {
		tb.Fatal(err)
	}
	var files []string
	for _, f := range all {
		if slices.Contains(exts, strings.ToLower(filepath.Ext(f))) {
			files = append(files, f)
		}
	}
	if len(files) == 0 {
		tb.Fatalf("no photos in %s", dir)
	}
	return files
}

// probeFile probes the file at path.
func probeFile(tb testing.TB, path string) Info {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	info, err := Probe(f)
	if err != nil {
		tb.Fatal(err)
	}
	return info
}

func readTestdata(tb testing.TB, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// sharedPhotos finds the project's real test photos, ../shared/photos
// beside the repository, by walking up from the test's folder; it skips
// the test when they are not there.
func sharedPhotos(tb testing.TB) string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		p := filepath.Join(dir, "shared", "photos")
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			return p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Skip("no shared/photos folder beside the repository; the real-photo tests need ../shared/photos")
		}
		dir = parent
	}
}
