package photo

import (
	"bytes"
	"context"
	"encoding/binary"
	"github.com/sparkfamily/spark/internal/racebuild"
	"image"
	"image/color"
	"os"
	"runtime"
	"testing"
)

// allocated returns the fewest bytes fn allocated in two runs: other
// goroutines of the test binary allocate too, never fewer.
func allocated(fn func()) int64 {
	least := int64(-1)
	for range 2 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		fn()
		runtime.ReadMemStats(&after)
		if n := int64(after.TotalAlloc - before.TotalAlloc); least < 0 || n < least {
			least = n
		}
	}
	return least
}

// withTRNS inserts a tRNS chunk after the IHDR of the PNG p: its gray or
// RGB pixels then decode with alpha, four or eight bytes a pixel.
func withTRNS(p []byte) []byte {
	at := 8 + 8 + 13 + 4
	trns := []byte{0, 7}
	if p[8+8+9] == 2 { // RGB: one sample a channel
		trns = []byte{0, 7, 0, 7, 0, 7}
	}
	out := append([]byte{}, p[:at]...)
	out = append(out, pngChunk("tRNS", trns)...)
	return append(out, p[at:]...)
}

// Issue 32, item 4: Footprint is at least what SmallCopyOf allocates, for
// every form of picture a decoder gives (8 and 16 bits a channel, gray,
// paletted, with alpha or a tRNS chunk, JPEG, turned by EXIF, WebP), and
// for photos of a small copy's size no more than two and a half times
// that, so a budget of memory made with it is not wasted.
func TestFootprint(t *testing.T) {
	// The race detector slows the decoders about tenfold: smaller
	// pictures, where the bytes every decode allocates whatever the size
	// make the estimate loose, so only its bound is checked.
	w, h, big, edges := 1200, 900, 2001, []int{640, DefaultMaxEdge}
	if racebuild.Enabled {
		w, h, big, edges = 300, 200, 500, []int{160, DefaultMaxEdge}
	}
	pattern := func(m interface{ Set(int, int, color.Color) }, b image.Rectangle, alpha bool) {
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				a := uint8(255)
				if alpha {
					a = uint8(100 + x%100)
				}
				m.Set(x, y, color.NRGBA{uint8(x), uint8(y), uint8(x ^ y), a})
			}
		}
	}
	r := image.Rect(0, 0, w, h)
	pic := func(m interface {
		image.Image
		Set(int, int, color.Color)
	}, alpha bool) image.Image {
		pattern(m, m.Bounds(), alpha)
		return m
	}
	palette := color.Palette{}
	for i := range 256 {
		palette = append(palette, color.Gray{uint8(i)})
	}
	gray := encodePNG(t, pic(image.NewGray(r), false))
	gray16 := encodePNG(t, pic(image.NewGray16(r), false))
	rgb := encodePNG(t, pic(image.NewRGBA(r), false))
	cases := map[string]struct {
		b   []byte
		big bool
	}{
		"PNG gray":                  {gray, true},
		"PNG gray with tRNS":        {withTRNS(gray), true},
		"PNG gray 16-bit":           {gray16, true},
		"PNG gray 16-bit with tRNS": {withTRNS(gray16), true},
		"PNG RGB":                   {rgb, true},
		"PNG RGB with tRNS":         {withTRNS(rgb), true},
		"PNG RGBA":                  {encodePNG(t, pic(image.NewNRGBA(r), true)), true},
		"PNG RGB 16-bit":            {encodePNG(t, pic(image.NewRGBA64(r), false)), true},
		"PNG RGBA 16-bit":           {encodePNG(t, pic(image.NewNRGBA64(r), true)), true},
		"PNG RGBA 16-bit, larger":   {encodePNG(t, pic(image.NewNRGBA64(image.Rect(0, 0, big, big*2/3)), true)), true},
		"PNG paletted":              {encodePNG(t, pic(image.NewPaletted(r, palette), false)), true},
		"PNG turned by EXIF":        {withEXIFChunk(rgb, 6), true},
		"JPEG 4:2:0":                {encodeJPEGWith(t, noisy(w, h)), true},
		"JPEG gray":                 {encodeJPEGWith(t, pic(image.NewGray(r), false)), true},
		"JPEG turned by EXIF":       {encodeJPEG(t, pic(image.NewNRGBA(r), false).(*image.NRGBA), 8, binary.BigEndian), true},
	}
	for _, f := range []string{"quadrants_lossless.webp", "quadrants_lossy.webp"} {
		b, err := os.ReadFile("testdata/" + f)
		if err != nil {
			t.Fatal(err)
		}
		cases[f] = struct {
			b   []byte
			big bool
		}{b, false}
	}
	for name, tc := range cases {
		for _, edge := range edges {
			opts := Options{MaxEdge: edge}
			info, want, err := Footprint(bytes.NewReader(tc.b), opts)
			if err != nil {
				t.Errorf("%s: Footprint: %v", name, err)
				continue
			}
			if probed, err := Probe(bytes.NewReader(tc.b)); err != nil || probed != info {
				t.Errorf("%s: Footprint's info %+v; Probe's %+v, %v", name, info, probed, err)
			}
			var serr error
			got := allocated(func() {
				_, serr = SmallCopyOf(context.Background(), name, bytes.NewReader(tc.b), new(bytes.Buffer), opts)
			})
			if serr != nil {
				t.Errorf("%s: SmallCopyOf: %v", name, serr)
				continue
			}
			if got > want {
				t.Errorf("%s to %d pixels: SmallCopyOf allocated %.2f MB, more than the %.2f MB of its Footprint", name, edge, mb(got), mb(want))
			}
			if tc.big && !racebuild.Enabled && float64(want) > 2.5*float64(got) {
				t.Errorf("%s to %d pixels: Footprint %.2f MB, more than two and a half times the %.2f MB SmallCopyOf allocated", name, edge, mb(want), mb(got))
			}
		}
	}

	// What a tile of a peer's hostile "small copy" costs: a 16-megapixel
	// PNG of 16 bits a channel decodes to 128 MB, and to 64 MB more once
	// made 8-bit.
	ihdr := binary.BigEndian.AppendUint32(nil, 4000)
	ihdr = binary.BigEndian.AppendUint32(ihdr, 4000)
	ihdr = append(ihdr, 16, 6, 0, 0, 0) // 16-bit RGBA
	bomb := append([]byte("\x89PNG\r\n\x1a\n"), pngChunk("IHDR", ihdr)...)
	bomb = append(bomb, pngChunk("IDAT", nil)...)
	if _, n, err := Footprint(bytes.NewReader(bomb), Options{MaxEdge: 640}); err != nil || n < 192e6 {
		t.Errorf("Footprint of a 16-megapixel 16-bit PNG = %d bytes, %v; want 192 MB or more", n, err)
	}
	for name, b := range map[string][]byte{"text": []byte("hello"), "a cut PNG": gray[:30], "a cut JPEG": encodeJPEGWith(t, noisy(64, 48))[:20]} {
		if _, _, err := Footprint(bytes.NewReader(b), Options{}); err == nil {
			t.Errorf("Footprint of %s: no error", name)
		}
	}
}

func mb(n int64) float64 { return float64(n) / (1 << 20) }
