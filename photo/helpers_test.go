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

// exifSegment returns a JPEG APP1 segment holding an EXIF block whose IFD0
// has one entry, the orientation.
func exifSegment(o int, bo binary.ByteOrder) []byte {
	var tiff bytes.Buffer
	if bo == binary.LittleEndian {
		tiff.WriteString("II")
	} else {
		tiff.WriteString("MM")
	}
	w := func(v any) { binary.Write(&tiff, bo, v) }
	w(uint16(42))
	w(uint32(8))     // IFD0 offset
	w(uint16(1))     // one entry
	w(uint16(0x112)) // Orientation
	w(uint16(3))     // SHORT
	w(uint32(1))     // count
	w(uint16(o))
	w(uint16(0)) // padding of the value field
	w(uint32(0)) // no next IFD
	body := append([]byte("Exif\x00\x00"), tiff.Bytes()...)
	seg := []byte{0xff, 0xe1, 0, 0}
	binary.BigEndian.PutUint16(seg[2:], uint16(len(body)+2))
	return append(seg, body...)
}

// encodeJPEG encodes m and, when o > 0, puts an EXIF orientation right
// after the start-of-image marker.
func encodeJPEG(tb testing.TB, m image.Image, o int, bo binary.ByteOrder) []byte {
	tb.Helper()
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, m, &jpeg.Options{Quality: 95}); err != nil {
		tb.Fatal(err)
	}
	b := buf.Bytes()
	if o == 0 {
		return b
	}
	out := append([]byte{}, b[:2]...)
	out = append(out, exifSegment(o, bo)...)
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
	tiff := exifSegment(o, binary.BigEndian)[4+6:] // no APP1 header, no "Exif\0\0"
	at := 8 + 8 + 13 + 4                           // signature, IHDR
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
	body = append(body, chunk("EXIF", exifSegment(o, binary.LittleEndian)[4:])...)
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
	ispe := append([]byte{0, 0, 0, 0}, binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, uint32(w)), uint32(h))...)
	props := [][]byte{heifBox("ispe", ispe)}
	for _, t := range transforms {
		props = append(props, heifBox(t[0].(string), []byte{t[1].(byte)}))
	}
	ipma := []byte{0, 0, 0, 0, 0, 0, 0, 1, 0, 1, byte(len(props))}
	for i := range props {
		ipma = append(ipma, byte(0x80|(i+1)))
	}
	meta := heifBox("meta", []byte{0, 0, 0, 0},
		heifBox("hdlr", make([]byte, 8), []byte("pict"), make([]byte, 13)),
		heifBox("pitm", []byte{0, 0, 0, 0, 0, 1}),
		heifBox("iprp", heifBox("ipco", props...), heifBox("ipma", ipma)),
	)
	ftyp := heifBox("ftyp", []byte("heic\x00\x00\x00\x00mif1heic"))
	return append(ftyp, meta...)
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
