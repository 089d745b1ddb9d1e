package photo

import (
	"image"
	"image/color"
	"math"

	"github.com/disintegration/imaging"
)

// PSNR returns the peak signal-to-noise ratio in decibels between two
// pictures of the same size, over their R, G and B values: about 40 dB and
// more means no visible difference. It is how the tests and spark-bench
// show that Shrink keeps the look of a single-pass Lanczos resize. It
// returns +Inf for identical pictures and NaN when the sizes differ.
func PSNR(a, b image.Image) float64 {
	ab, bb := a.Bounds(), b.Bounds()
	if ab.Size() != bb.Size() || ab.Empty() {
		return math.NaN()
	}
	var sum float64
	for y := 0; y < ab.Dy(); y++ {
		for x := 0; x < ab.Dx(); x++ {
			ca := color.NRGBAModel.Convert(a.At(ab.Min.X+x, ab.Min.Y+y)).(color.NRGBA)
			cb := color.NRGBAModel.Convert(b.At(bb.Min.X+x, bb.Min.Y+y)).(color.NRGBA)
			dr := float64(ca.R) - float64(cb.R)
			dg := float64(ca.G) - float64(cb.G)
			db := float64(ca.B) - float64(cb.B)
			sum += dr*dr + dg*dg + db*db
		}
	}
	mse := sum / float64(3*ab.Dx()*ab.Dy())
	if mse == 0 {
		return math.Inf(1)
	}
	return 10 * math.Log10(255*255/mse)
}

// Reference returns the small picture made the plain way, for comparison:
// the whole picture resized in one pass with imaging's Lanczos filter, then
// turned upright, then given 4:2:0 chroma by averaging 2x2 blocks as the
// JPEG encoder does to anything it encodes. Comparing Shrink's result with
// it measures the resize alone.
func Reference(img image.Image, orientation, maxEdge int) image.Image {
	b := img.Bounds()
	w, h := fitSize(b.Dx(), b.Dy(), maxEdge)
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
	b := m.Bounds()
	out := image.NewYCbCr(b, image.YCbCrSubsampleRatio420)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := m.NRGBAAt(x, y)
			yy, _, _ := color.RGBToYCbCr(c.R, c.G, c.B)
			out.Y[out.YOffset(x, y)] = yy
		}
	}
	for cy := 0; cy < (b.Dy()+1)/2; cy++ {
		for cx := 0; cx < (b.Dx()+1)/2; cx++ {
			var sb, sr, n int
			for dy := 0; dy < 2; dy++ {
				for dx := 0; dx < 2; dx++ {
					x, y := b.Min.X+2*cx+dx, b.Min.Y+2*cy+dy
					if x >= b.Max.X || y >= b.Max.Y {
						continue
					}
					c := m.NRGBAAt(x, y)
					_, cb, cr := color.RGBToYCbCr(c.R, c.G, c.B)
					sb += int(cb)
					sr += int(cr)
					n++
				}
			}
			i := out.COffset(b.Min.X+2*cx, b.Min.Y+2*cy)
			out.Cb[i] = uint8((sb + n/2) / n)
			out.Cr[i] = uint8((sr + n/2) / n)
		}
	}
	return out
}
