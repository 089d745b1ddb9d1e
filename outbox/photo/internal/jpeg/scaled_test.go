package jpeg

import (
	"bytes"
	"fmt"
	"github.com/sparkfamily/spark/internal/racebuild"
	"image"
	stdjpeg "image/jpeg"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// samePixels returns "" when a and b are the same picture, type and bytes,
// or what differs.
func samePixels(a, b image.Image) string {
	if a.Bounds() != b.Bounds() {
		return fmt.Sprintf("bounds %v and %v", a.Bounds(), b.Bounds())
	}
	r := a.Bounds()
	switch m := a.(type) {
	case *image.YCbCr:
		n, ok := b.(*image.YCbCr)
		if !ok {
			return fmt.Sprintf("types %T and %T", a, b)
		}
		if m.SubsampleRatio != n.SubsampleRatio {
			return fmt.Sprintf("subsampling %v and %v", m.SubsampleRatio, n.SubsampleRatio)
		}
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				yi, ci := m.YOffset(x, y), m.COffset(x, y)
				yj, cj := n.YOffset(x, y), n.COffset(x, y)
				if m.Y[yi] != n.Y[yj] || m.Cb[ci] != n.Cb[cj] || m.Cr[ci] != n.Cr[cj] {
					return fmt.Sprintf("at (%d, %d): YCbCr %d %d %d and %d %d %d", x, y,
						m.Y[yi], m.Cb[ci], m.Cr[ci], n.Y[yj], n.Cb[cj], n.Cr[cj])
				}
			}
		}
		return ""
	case *image.Gray, *image.RGBA, *image.CMYK:
		if fmt.Sprintf("%T", a) != fmt.Sprintf("%T", b) {
			return fmt.Sprintf("types %T and %T", a, b)
		}
	default:
		return fmt.Sprintf("unexpected type %T", a)
	}
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if a.At(x, y) != b.At(x, y) {
				return fmt.Sprintf("at (%d, %d): %v and %v", x, y, a.At(x, y), b.At(x, y))
			}
		}
	}
	return ""
}

// testPictures are the standard library's JPEG test images.
func testPictures(tb testing.TB) map[string][]byte {
	tb.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "*.jpeg"))
	if err != nil || len(files) == 0 {
		tb.Fatalf("no test pictures: %v", err)
	}
	out := map[string][]byte{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		out[filepath.Base(f)] = b
	}
	return out
}

// photoLike is a w by h picture with gradients, edges and noise, closer
// to a photo's coefficients than flat colour.
func photoLike(w, h int, seed uint64) *image.RGBA {
	m := image.NewRGBA(image.Rect(0, 0, w, h))
	r := rand.New(rand.NewPCG(seed, 7))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			v := x*200/w + r.IntN(40)
			if (x/23+y/17)%3 == 0 {
				v += 50
			}
			i := m.PixOffset(x, y)
			m.Pix[i] = uint8(min(v, 255))
			m.Pix[i+1] = uint8(min(y*255/h+r.IntN(20), 255))
			m.Pix[i+2] = uint8(min((x+y)*128/(w+h)+r.IntN(60), 255))
			m.Pix[i+3] = 255
		}
	}
	return m
}

// encoded returns photoLike pictures encoded by image/jpeg at several
// sizes and qualities (4:2:0, the encoder's only subsampling).
func encoded(tb testing.TB) map[string][]byte {
	tb.Helper()
	out := map[string][]byte{}
	for i, sz := range [][2]int{{1, 1}, {7, 9}, {33, 17}, {200, 150}, {257, 131}} {
		for _, q := range []int{1, 30, 75, 100} {
			var buf bytes.Buffer
			if err := stdjpeg.Encode(&buf, photoLike(sz[0], sz[1], uint64(i)), &stdjpeg.Options{Quality: q}); err != nil {
				tb.Fatal(err)
			}
			out[fmt.Sprintf("photo-%dx%d-q%d", sz[0], sz[1], q)] = buf.Bytes()
		}
	}
	return out
}

// TestDecodeSameAsImageJPEG checks that at scale 1 every test picture of
// the standard library (baseline and progressive, gray, 4:4:4 to 4:1:0,
// RGB, CMYK, restart markers, truncated) and pictures of image/jpeg's
// encoder decode to the same pixels as with image/jpeg, or fail alike.
func TestDecodeSameAsImageJPEG(t *testing.T) {
	all := testPictures(t)
	for name, b := range encoded(t) {
		all[name] = b
	}
	defer func(n int) { parallelBlocks = n }(parallelBlocks)
	for _, par := range []int{parallelBlocks, 0} {
		// With 0, every picture takes the path of a large one: the
		// inverse DCTs in a second goroutine.
		parallelBlocks = par
		for name, b := range all {
			t.Run(fmt.Sprintf("%s/parallel%d", name, par), func(t *testing.T) {
				want, wantErr := stdjpeg.Decode(bytes.NewReader(b))
				got, err := Decode(bytes.NewReader(b))
				if (err == nil) != (wantErr == nil) {
					t.Fatalf("error %v, image/jpeg's %v", err, wantErr)
				}
				if err != nil {
					return
				}
				if diff := samePixels(got, want); diff != "" {
					t.Fatal(diff)
				}
			})
		}
	}
}

// planes returns the planes of a decoded picture, with their pixel size
// relative to the first plane's.
func planes(m image.Image) (ps [][]byte, strides, ws, hs []int) {
	switch m := m.(type) {
	case *image.YCbCr:
		w, h := m.Rect.Dx(), m.Rect.Dy()
		cw, ch := w, h
		switch m.SubsampleRatio {
		case image.YCbCrSubsampleRatio420:
			cw, ch = (w+1)/2, (h+1)/2
		case image.YCbCrSubsampleRatio422:
			cw = (w + 1) / 2
		case image.YCbCrSubsampleRatio440:
			ch = (h + 1) / 2
		case image.YCbCrSubsampleRatio411:
			cw = (w + 3) / 4
		case image.YCbCrSubsampleRatio410:
			cw, ch = (w+3)/4, (h+1)/2
		}
		return [][]byte{m.Y, m.Cb, m.Cr}, []int{m.YStride, m.CStride, m.CStride}, []int{w, cw, cw}, []int{h, ch, ch}
	case *image.Gray:
		return [][]byte{m.Pix}, []int{m.Stride}, []int{m.Rect.Dx()}, []int{m.Rect.Dy()}
	}
	return nil, nil, nil, nil
}

// TestDecodeScaledIsBlockMean checks each scaled decode against the mean
// of the scale by scale pixels of the full decode that each of its pixels
// stands for, plane by plane: the reduced inverse DCT computes that mean
// before rounding and clipping, so they differ by rounding, and where the
// full decode clips.
func TestDecodeScaledIsBlockMean(t *testing.T) {
	all := testPictures(t)
	for name, b := range encoded(t) {
		all[name] = b
	}
	for name, b := range all {
		full, err := Decode(bytes.NewReader(b))
		if err != nil {
			continue
		}
		fp, fs, fw, fh := planes(full)
		if fp == nil {
			continue // RGB and CMYK: converted after the transform
		}
		for _, scale := range []int{2, 4, 8} {
			img, err := DecodeScaled(bytes.NewReader(b), scale)
			if err != nil {
				t.Fatalf("%s at 1/%d: %v", name, scale, err)
			}
			w, h := ScaledSize(full.Bounds().Dx(), full.Bounds().Dy(), scale)
			if img.Bounds() != image.Rect(0, 0, w, h) {
				t.Fatalf("%s at 1/%d: bounds %v, want %dx%d", name, scale, img.Bounds(), w, h)
			}
			sp, ss, sw, sh := planes(img)
			for p := range fp {
				var sum float64
				n := 0
				for y := 0; y < sh[p]; y++ {
					for x := 0; x < sw[p]; x++ {
						var mean float64
						k := 0
						for yy := y * scale; yy < min(y*scale+scale, fh[p]); yy++ {
							for xx := x * scale; xx < min(x*scale+scale, fw[p]); xx++ {
								mean += float64(fp[p][yy*fs[p]+xx])
								k++
							}
						}
						// A partial block at the edge: the scaled pixel
						// also averages the encoder's padding.
						if k < scale*scale {
							continue
						}
						d := float64(sp[p][y*ss[p]+x]) - mean/float64(k)
						sum += d * d
						n++
					}
				}
				if n == 0 {
					continue
				}
				psnr := 10 * math.Log10(255*255/max(sum/float64(n), 1e-9))
				t.Logf("%s 1/%d plane %d: %.1f dB", name, scale, p, psnr)
				if psnr < 40 {
					t.Errorf("%s at 1/%d, plane %d: PSNR %.1f dB against the block means of the full decode, want >= 40", name, scale, p, psnr)
				}
			}
		}
	}
}

// floatIDCT is the inverse DCT of b in float64, neither rounded nor
// level shifted.
func floatIDCT(b *block) [64]float64 {
	var out [64]float64
	for y := 0; y < 8; y++ {
		for x := 0; x < 8; x++ {
			sum := 0.0
			for v := 0; v < 8; v++ {
				for u := 0; u < 8; u++ {
					sum += alpha(u) * alpha(v) * float64(b[8*v+u]) *
						math.Cos(float64((2*x+1)*u)*math.Pi/16) *
						math.Cos(float64((2*y+1)*v)*math.Pi/16)
				}
			}
			out[8*y+x] = sum / 8
		}
	}
	return out
}

// TestReducedIDCT checks idct4 and idct2 (and the 1x1 mean) against the
// exact means of floatIDCT's pixels, on blocks of random dequantized
// coefficients whose size falls with the frequency, as a photo's do.
func TestReducedIDCT(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	worst := [3]int{}
	n := 2000
	if racebuild.Enabled {
		n = 200
	}
	for i := 0; i < n; i++ {
		var b block
		for k := range b {
			u, v := k%8, k/8
			spread := 1024 / (1 + u + v)
			if r.IntN(3) == 0 || k == 0 {
				b[k] = int32(r.IntN(2*spread+1) - spread)
			}
		}
		if i%5 == 0 {
			b[0] = int32(r.IntN(2049) - 1024)
		}
		f := floatIDCT(&b)
		for si, bs := range []int{4, 2, 1} {
			var dst [16]byte
			c := b
			switch bs {
			case 4:
				idct4(&c, dst[:], 4)
			case 2:
				idct2(&c, dst[:], 4)
			case 1:
				dst[0] = level(dcOnly(c[0]))
			}
			k := 8 / bs
			for y := 0; y < bs; y++ {
				for x := 0; x < bs; x++ {
					var mean float64
					for yy := y * k; yy < y*k+k; yy++ {
						for xx := x * k; xx < x*k+k; xx++ {
							mean += f[8*yy+xx]
						}
					}
					want := int(math.Round(min(max(mean/float64(k*k)+128, 0), 255)))
					d := int(dst[4*y+x]) - want
					worst[si] = max(worst[si], d, -d)
				}
			}
		}
	}
	for si, bs := range []int{4, 2, 1} {
		if worst[si] > 1 {
			t.Errorf("%dx%d: off by up to %d from the exact block means, want <= 1", bs, bs, worst[si])
		}
	}
}

// TestDCOnly checks that dcOnly gives, for a block with only a DC term,
// the bits of the full inverse DCT: the 1/8 decode stores it as the
// block's one pixel, so that it is the mean of the pixels the full-size
// decode gives.
func TestDCOnly(t *testing.T) {
	for dc := int32(-70000); dc <= 70000; dc += 7 {
		b := block{0: dc}
		idct(&b)
		for k, v := range b {
			if v != dcOnly(dc) {
				t.Fatalf("dc %d: pixel %d is %d, dcOnly says %d", dc, k, v, dcOnly(dc))
			}
		}
	}
}

// TestChooseScale checks the reduction is the largest that leaves at
// least the size asked for.
func TestChooseScale(t *testing.T) {
	tests := []struct{ w, h, mw, mh, want int }{
		{4032, 3024, 1600, 1200, 2},
		{6000, 4000, 1600, 1067, 2},
		{2048, 1536, 1600, 1200, 1},
		{12800, 9600, 1600, 1200, 8},
		{12801, 9601, 1600, 1200, 8},
		{12792, 9600, 1600, 1200, 4},
		{6400, 4800, 1600, 1200, 4},
		{100, 100, 1600, 1200, 1},
		{1, 1, 1, 1, 8},
	}
	for _, tt := range tests {
		if got := ChooseScale(tt.w, tt.h, tt.mw, tt.mh); got != tt.want {
			t.Errorf("ChooseScale(%d, %d, %d, %d) = %d, want %d", tt.w, tt.h, tt.mw, tt.mh, got, tt.want)
		}
	}
	if _, err := DecodeScaled(bytes.NewReader(nil), 3); err == nil || !strings.Contains(err.Error(), "scale") {
		t.Errorf("DecodeScaled(scale 3) error = %v", err)
	}
}

// BenchmarkDecodeScaled decodes a 2048x1536 photo-like picture at each
// scale.
func BenchmarkDecodeScaled(b *testing.B) {
	var buf bytes.Buffer
	if err := stdjpeg.Encode(&buf, photoLike(2048, 1536, 1), &stdjpeg.Options{Quality: 90}); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	for _, scale := range []int{1, 2, 4, 8} {
		b.Run(fmt.Sprint(scale), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := DecodeScaled(bytes.NewReader(data), scale); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("image/jpeg", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			if _, err := stdjpeg.Decode(bytes.NewReader(data)); err != nil {
				b.Fatal(err)
			}
		}
	})
}
