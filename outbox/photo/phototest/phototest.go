// Package phototest holds the oracles that photo's tests and spark-bench
// measure the small copy against: PSNR, and Reference, the small picture
// made the plain way with disintegration/imaging; and JPEG, a small photo
// for the tests that capture and copy photos. It is for tests and
// benchmarks; the app does not link it.
package phototest

import (
	"bytes"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"math"
	"math/rand/v2"

	"github.com/disintegration/imaging"
)

// JPEG makes a w by h JPEG (quality 80) whose pixels depend on seed, so
// each seed gives a different file, and SHA-256.
func JPEG(w, h int, seed uint64) []byte {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.Set(x, y, color.RGBA{uint8(r.IntN(256)), uint8(x * 255 / w), uint8(y * 255 / h), 255})
		}
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 80}); err != nil {
		panic(err) // an RGBA picture always encodes into memory
	}
	return b.Bytes()
}

// PSNR returns the peak signal-to-noise ratio in decibels between two
// pictures of the same size, over their R, G and B values: about 40 dB and
// more means no visible difference. It is how the tests and spark-bench
// show that photo.Shrink keeps the look of a single-pass Lanczos resize.
// It returns +Inf for identical pictures and NaN when the sizes differ.
func PSNR(a, b image.Image) float64 {
	if a.Bounds().Size() != b.Bounds().Size() || a.Bounds().Empty() {
		return math.NaN()
	}
	pa, pb := toNRGBA(a), toNRGBA(b)
	var sum float64
	for y := 0; y < pa.Rect.Dy(); y++ {
		ra := pa.Pix[y*pa.Stride : y*pa.Stride+4*pa.Rect.Dx()]
		rb := pb.Pix[y*pb.Stride : y*pb.Stride+4*pb.Rect.Dx()]
		for i := 0; i < len(ra); i += 4 {
			for c := 0; c < 3; c++ {
				d := float64(ra[i+c]) - float64(rb[i+c])
				sum += d * d
			}
		}
	}
	mse := sum / float64(3*pa.Rect.Dx()*pa.Rect.Dy())
	if mse == 0 {
		return math.Inf(1)
	}
	return 10 * math.Log10(255*255/mse)
}

// toNRGBA converts m with draw's fast paths.
func toNRGBA(m image.Image) *image.NRGBA {
	if n, ok := m.(*image.NRGBA); ok {
		return n
	}
	b := m.Bounds()
	n := image.NewNRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(n, n.Rect, m, b.Min, draw.Src)
	return n
}

// Reference returns the small picture made the plain way, for comparison:
// the whole picture resized to w by h (the size before the orientation) in
// one pass with imaging's Lanczos filter, then turned upright for the EXIF
// orientation, then given 4:2:0 chroma by averaging 2x2 blocks as the JPEG
// encoder does to anything it encodes. Comparing photo.Shrink's result
// with it measures the resize alone.
func Reference(img image.Image, orientation, w, h int) image.Image {
	ref := imaging.Resize(img, w, h, imaging.Lanczos)
	switch orientation {
	case 2:
		ref = imaging.FlipH(ref)
	case 3:
		ref = imaging.Rotate180(ref)
	case 4:
		ref = imaging.FlipV(ref)
	case 5:
		ref = imaging.Transpose(ref)
	case 6:
		ref = imaging.Rotate270(ref)
	case 7:
		ref = imaging.Transverse(ref)
	case 8:
		ref = imaging.Rotate90(ref)
	}
	return to420(ref)
}

// to420 converts m to 4:2:0 YCbCr, each chroma sample the mean of its 2x2
// block, as image/jpeg's encoder subsamples.
func to420(m *image.NRGBA) *image.YCbCr {
	w, h := m.Rect.Dx(), m.Rect.Dy()
	out := image.NewYCbCr(image.Rect(0, 0, w, h), image.YCbCrSubsampleRatio420)
	cw := (w + 1) / 2
	sb := make([]int, cw)
	sr := make([]int, cw)
	n := make([]int, cw)
	for y := 0; y < h; y++ {
		if y%2 == 0 {
			clear(sb)
			clear(sr)
			clear(n)
		}
		row := m.Pix[y*m.Stride : y*m.Stride+4*w]
		for x := 0; x < w; x++ {
			yy, cb, cr := color.RGBToYCbCr(row[4*x], row[4*x+1], row[4*x+2])
			out.Y[y*out.YStride+x] = yy
			sb[x/2] += int(cb)
			sr[x/2] += int(cr)
			n[x/2]++
		}
		if y%2 == 1 || y == h-1 {
			for cx := 0; cx < cw; cx++ {
				i := (y/2)*out.CStride + cx
				out.Cb[i] = uint8((sb[cx] + n[cx]/2) / n[cx])
				out.Cr[i] = uint8((sr[cx] + n[cx]/2) / n[cx])
			}
		}
	}
	return out
}
