package photo

import (
	"image"
	"image/draw"
	"sync"
)

// fitSize returns the size that fits w by h inside a maxEdge square with
// the same aspect, rounded as imaging.Fit rounds; a picture that already
// fits keeps its size (never upscaled).
func fitSize(w, h, maxEdge int) (int, int) {
	if maxEdge <= 0 || (w <= maxEdge && h <= maxEdge) {
		return w, h
	}
	if w >= h {
		return maxEdge, max(int(float64(maxEdge)*float64(h)/float64(w)+0.5), 1)
	}
	return max(int(float64(maxEdge)*float64(w)/float64(h)+0.5), 1), maxEdge
}

// Shrink returns img resized so that its long edge is at most maxEdge
// pixels (never enlarged) and turned upright for the EXIF orientation,
// which is applied after the resize, on the small picture. It is the
// picture SmallCopy encodes. A *image.YCbCr comes back as a 4:2:0
// *image.YCbCr, a *image.Gray as a *image.Gray, and anything else as an
// *image.RGBA with transparency flattened onto white.
func Shrink(img image.Image, orientation, maxEdge int) image.Image {
	b := img.Bounds()
	w, h := fitSize(b.Dx(), b.Dy(), maxEdge)
	return shrinkTo(img, w, h, orientation)
}

// shrinkTo is Shrink to w by h pixels (before the orientation), which
// must be no more than img's size.
func shrinkTo(img image.Image, w, h, orientation int) image.Image {
	b := img.Bounds()
	switch m := img.(type) {
	case *image.YCbCr:
		return shrinkYCbCr(m, w, h, orientation)
	case *image.Gray:
		p := plane{w: b.Dx(), h: b.Dy(), stride: m.Stride, pix: m.Pix[m.PixOffset(b.Min.X, b.Min.Y):]}
		y := orientPlane(shrinkPlane(p, w, h, 2), orientation)
		return &image.Gray{Pix: y.pix, Stride: y.stride, Rect: image.Rect(0, 0, y.w, y.h)}
	}
	return shrinkRGB(img, w, h, orientation)
}

// chromaSize is the size of the chroma planes of a w by h picture.
func chromaSize(w, h int, r image.YCbCrSubsampleRatio) (int, int) {
	switch r {
	case image.YCbCrSubsampleRatio422:
		return (w + 1) / 2, h
	case image.YCbCrSubsampleRatio420:
		return (w + 1) / 2, (h + 1) / 2
	case image.YCbCrSubsampleRatio440:
		return w, (h + 1) / 2
	case image.YCbCrSubsampleRatio411:
		return (w + 3) / 4, h
	case image.YCbCrSubsampleRatio410:
		return (w + 3) / 4, (h + 1) / 2
	}
	return w, h
}

// shrinkYCbCr resizes the three planes of m as they are, each straight to
// the size it has in a 4:2:0 picture of w by h, so the chroma of a 4:2:0
// JPEG is never upsampled first. The filter is linear, so resizing Y, Cb
// and Cr is resizing R, G and B, up to rounding.
func shrinkYCbCr(m *image.YCbCr, w, h, orientation int) image.Image {
	b := m.Bounds()
	cw, ch := chromaSize(b.Dx(), b.Dy(), m.SubsampleRatio)
	y := plane{w: b.Dx(), h: b.Dy(), stride: m.YStride, pix: m.Y[m.YOffset(b.Min.X, b.Min.Y):]}
	ci := m.COffset(b.Min.X, b.Min.Y)
	cb := plane{w: cw, h: ch, stride: m.CStride, pix: m.Cb[ci:]}
	cr := plane{w: cw, h: ch, stride: m.CStride, pix: m.Cr[ci:]}
	ocw, och := (w+1)/2, (h+1)/2

	// Luma is about twice the work of both chroma planes: two bands of
	// luma and the chroma keep two cores busy when they are free.
	var out [3]plane
	parallel(
		func() { out[0] = orientPlane(shrinkPlane(y, w, h, 2), orientation) },
		func() {
			out[1] = orientPlane(shrinkPlane(cb, ocw, och, 1), orientation)
			out[2] = orientPlane(shrinkPlane(cr, ocw, och, 1), orientation)
		},
	)
	return &image.YCbCr{
		Y: out[0].pix, Cb: out[1].pix, Cr: out[2].pix,
		YStride: out[0].stride, CStride: out[1].stride,
		SubsampleRatio: image.YCbCrSubsampleRatio420,
		Rect:           image.Rect(0, 0, out[0].w, out[0].h),
	}
}

// parallel runs the functions at once and waits for them.
func parallel(fns ...func()) {
	var wg sync.WaitGroup
	for _, fn := range fns[1:] {
		wg.Go(fn)
	}
	fns[0]()
	wg.Wait()
}

// shrinkRGB splits img into R, G and B planes, flattening any
// transparency onto white (a JPEG has none, and a dark background would
// hide dark line art), and resizes those.
func shrinkRGB(img image.Image, w, h, orientation int) image.Image {
	var src *image.NRGBA
	switch m := img.(type) {
	case *image.NRGBA:
		src = m
	default:
		b := m.Bounds()
		src = image.NewNRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
		draw.Draw(src, src.Rect, m, b.Min, draw.Src)
	}
	b := src.Bounds()
	sw, sh := b.Dx(), b.Dy()
	// Pre-shrink while splitting, so the full-size planes never exist.
	k := max(min(sw/w, sh/h), 1)
	r, g, bl := splitNRGBA(src, k)
	var out [3]plane
	parallel(
		func() {
			out[0] = orientPlane(resample(r, float64(sw)/float64(k), float64(sh)/float64(k), w, h, 1), orientation)
		},
		func() {
			out[1] = orientPlane(resample(g, float64(sw)/float64(k), float64(sh)/float64(k), w, h, 1), orientation)
			out[2] = orientPlane(resample(bl, float64(sw)/float64(k), float64(sh)/float64(k), w, h, 1), orientation)
		},
	)
	dst := image.NewRGBA(image.Rect(0, 0, out[0].w, out[0].h))
	for y := 0; y < out[0].h; y++ {
		row := dst.Pix[y*dst.Stride : y*dst.Stride+4*out[0].w]
		i := y * out[0].stride
		for x := 0; x < out[0].w; x++ {
			row[4*x] = out[0].pix[i+x]
			row[4*x+1] = out[1].pix[i+x]
			row[4*x+2] = out[2].pix[i+x]
			row[4*x+3] = 0xff
		}
	}
	return dst
}

// splitNRGBA returns the R, G and B planes of m over white, each averaged
// over k by k blocks.
func splitNRGBA(m *image.NRGBA, k int) (r, g, b plane) {
	bd := m.Bounds()
	sw, sh := bd.Dx(), bd.Dy()
	dw, dh := (sw+k-1)/k, (sh+k-1)/k
	r, g, b = newPlane(dw, dh), newPlane(dw, dh), newPlane(dw, dh)
	sums := make([]int32, 3*dw)
	counts := make([]int32, dw)
	for dy := 0; dy < dh; dy++ {
		clear(sums)
		clear(counts)
		for y := dy * k; y < min(dy*k+k, sh); y++ {
			row := m.Pix[m.PixOffset(bd.Min.X, bd.Min.Y+y):]
			for x := 0; x < sw; x++ {
				p := row[4*x : 4*x+4 : 4*x+4]
				a := int32(p[3])
				// Over white: c*a/255 + 255*(255-a)/255.
				cr := (int32(p[0])*a + 255*(255-a) + 127) / 255
				cg := (int32(p[1])*a + 255*(255-a) + 127) / 255
				cb := (int32(p[2])*a + 255*(255-a) + 127) / 255
				i := x / k
				sums[3*i] += cr
				sums[3*i+1] += cg
				sums[3*i+2] += cb
				counts[i]++
			}
		}
		o := dy * dw
		for i := 0; i < dw; i++ {
			n := counts[i]
			r.pix[o+i] = uint8((sums[3*i] + n/2) / n)
			g.pix[o+i] = uint8((sums[3*i+1] + n/2) / n)
			b.pix[o+i] = uint8((sums[3*i+2] + n/2) / n)
		}
	}
	return r, g, b
}

// orientImage returns img turned upright for orientation o, at full size:
// the picture Decode returns for a HEIC whose tiles it decoded as stored.
func orientImage(img image.Image, o int) image.Image {
	m, ok := img.(*image.YCbCr)
	if !ok || o <= 1 || o > 8 {
		return img
	}
	b := m.Bounds()
	cw, ch := chromaSize(b.Dx(), b.Dy(), m.SubsampleRatio)
	ratio := m.SubsampleRatio
	if swapsAxes(o) {
		switch ratio {
		case image.YCbCrSubsampleRatio422:
			ratio = image.YCbCrSubsampleRatio440
		case image.YCbCrSubsampleRatio440:
			ratio = image.YCbCrSubsampleRatio422
		case image.YCbCrSubsampleRatio420, image.YCbCrSubsampleRatio444:
		default:
			return img // 4:1:1 and 4:1:0 have no turned form; no HEIC is either
		}
	}
	ci := m.COffset(b.Min.X, b.Min.Y)
	var out [3]plane
	parallel(
		func() {
			out[0] = orientPlane(plane{w: b.Dx(), h: b.Dy(), stride: m.YStride, pix: m.Y[m.YOffset(b.Min.X, b.Min.Y):]}, o)
		},
		func() {
			out[1] = orientPlane(plane{w: cw, h: ch, stride: m.CStride, pix: m.Cb[ci:]}, o)
			out[2] = orientPlane(plane{w: cw, h: ch, stride: m.CStride, pix: m.Cr[ci:]}, o)
		},
	)
	return &image.YCbCr{
		Y: out[0].pix, Cb: out[1].pix, Cr: out[2].pix,
		YStride: out[0].stride, CStride: out[1].stride,
		SubsampleRatio: ratio,
		Rect:           image.Rect(0, 0, out[0].w, out[0].h),
	}
}
