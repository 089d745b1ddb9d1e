package jpeg

import (
	"bytes"
	"github.com/sparkfamily/spark/internal/racebuild"
	"image"
	"image/draw"
	stdjpeg "image/jpeg"
	"testing"
)

// div is image/jpeg's division for quantization: a/b rounded to the
// nearest integer, instead of rounded to zero.
func div(a, b int32) int32 {
	if a >= 0 {
		return (a + (b >> 1)) / b
	}
	return -((-a + (b >> 1)) / b)
}

// TestDivide checks the encoder's division by multiplication against div
// for every quantizer and every dividend the forward DCT can give.
func TestDivide(t *testing.T) {
	step := int32(1)
	if racebuild.Enabled {
		step = 7
	}
	for q := 1; q <= 255; q++ {
		m := (1<<32 + uint64(8*q) - 1) / uint64(8*q)
		for a := int32(-1 << 15); a < 1<<15; a += step {
			if got, want := divide(a, uint8(q), m), div(a, int32(8*q)); got != want {
				t.Fatalf("divide(%d) by 8*%d = %d, want %d", a, q, got, want)
			}
		}
	}
}

// TestEncodeSameAsImageJPEG checks that Encode writes image/jpeg's bytes
// for 4:2:0 pictures (its own path), and for the others.
func TestEncodeSameAsImageJPEG(t *testing.T) {
	for i, sz := range [][2]int{{1, 1}, {2, 3}, {15, 17}, {16, 16}, {33, 31}, {200, 150}, {257, 131}} {
		rgba := photoLike(sz[0], sz[1], uint64(i))
		// The 4:2:0 picture of rgba, as a decoder returns it.
		var buf bytes.Buffer
		if err := stdjpeg.Encode(&buf, rgba, &stdjpeg.Options{Quality: 95}); err != nil {
			t.Fatal(err)
		}
		ycc, err := Decode(&buf)
		if err != nil {
			t.Fatal(err)
		}
		gray := image.NewGray(rgba.Bounds())
		draw.Draw(gray, gray.Rect, rgba, image.Point{}, draw.Src)
		nrgba := image.NewNRGBA(rgba.Bounds())
		draw.Draw(nrgba, nrgba.Rect, rgba, image.Point{}, draw.Src)
		for _, m := range []image.Image{ycc, rgba, gray, nrgba} {
			for _, q := range []int{1, 50, 85, 100} {
				var got, want bytes.Buffer
				if err := Encode(&got, m, &Options{Quality: q}); err != nil {
					t.Fatal(err)
				}
				if err := stdjpeg.Encode(&want, m, &stdjpeg.Options{Quality: q}); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got.Bytes(), want.Bytes()) {
					t.Errorf("%T %dx%d q%d: %d bytes, image/jpeg's %d, or other bytes", m, sz[0], sz[1], q, got.Len(), want.Len())
				}
			}
		}
	}
}

// BenchmarkEncode420 encodes a 1600x1200 4:2:0 picture, a small copy's.
func BenchmarkEncode420(b *testing.B) {
	var buf bytes.Buffer
	if err := stdjpeg.Encode(&buf, photoLike(1600, 1200, 3), &stdjpeg.Options{Quality: 95}); err != nil {
		b.Fatal(err)
	}
	m, err := Decode(&buf)
	if err != nil {
		b.Fatal(err)
	}
	for _, enc := range []struct {
		name string
		fn   func(*bytes.Buffer) error
	}{
		{"ours", func(w *bytes.Buffer) error { return Encode(w, m, &Options{Quality: 85}) }},
		{"image-jpeg", func(w *bytes.Buffer) error { return stdjpeg.Encode(w, m, &stdjpeg.Options{Quality: 85}) }},
	} {
		b.Run(enc.name, func(b *testing.B) {
			var w bytes.Buffer
			defer reportCPU(b)()
			for b.Loop() {
				w.Reset()
				if err := enc.fn(&w); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(w.Len()), "bytes")
		})
	}
}
