package wordsphotos

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"math"
	"math/rand/v2"
	"strings"
	"sync"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/gomedium"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
)

// The Go fonts, parsed once.
var goFonts = sync.OnceValues(func() (map[string]*opentype.Font, error) {
	fs := map[string]*opentype.Font{}
	for name, ttf := range map[string][]byte{"regular": goregular.TTF, "bold": gobold.TTF, "medium": gomedium.TTF} {
		f, err := opentype.Parse(ttf)
		if err != nil {
			return nil, fmt.Errorf("parse the Go font %s: %w", name, err)
		}
		fs[name] = f
	}
	return fs, nil
})

// face is the Go font name at px pixels (the em).
func face(name string, px float64) (font.Face, error) {
	fs, err := goFonts()
	if err != nil {
		return nil, err
	}
	f, ok := fs[name]
	if !ok {
		return nil, fmt.Errorf("no Go font %q", name)
	}
	return opentype.NewFace(f, &opentype.FaceOptions{Size: px, DPI: 72, Hinting: font.HintingNone})
}

// block is a paragraph of a surface: wrapped to the width it is laid out
// in, each line left-aligned or centred.
type block struct {
	text   string
	font   string
	px     float64
	col    color.Color
	center bool
	// before is the space above it, in its line heights.
	before float64
}

// layout draws blocks on dst from (x0, y0) within width pixels and
// returns the lines as drawn, a blank line between blocks that have
// space between them.
func layout(dst *image.RGBA, blocks []block, x0, y0, width int) ([]string, error) {
	var lines []string
	y := float64(y0)
	for i, b := range blocks {
		f, err := face(b.font, b.px)
		if err != nil {
			return nil, err
		}
		h := b.px * 1.3
		y += b.before * h
		if i > 0 && b.before > 0 {
			lines = append(lines, "")
		}
		for _, l := range wrap(b.text, f, width) {
			x := float64(x0)
			if b.center {
				x += (float64(width) - float64(font.MeasureString(f, l))/64) / 2
			}
			d := font.Drawer{Dst: dst, Src: image.NewUniform(b.col), Face: f,
				Dot: fixed.Point26_6{X: fixed.Int26_6(x * 64), Y: fixed.Int26_6((y + b.px) * 64)}}
			d.DrawString(l)
			lines = append(lines, l)
			y += h
		}
	}
	return lines, nil
}

// wrap breaks text into lines no wider than width in f.
func wrap(text string, f font.Face, width int) []string {
	var lines []string
	cur := ""
	for _, w := range strings.Fields(text) {
		next := w
		if cur != "" {
			next = cur + " " + w
		}
		if cur != "" && font.MeasureString(f, next).Ceil() > width {
			lines = append(lines, cur)
			next = w
		}
		cur = next
	}
	if cur != "" {
		lines = append(lines, cur)
	}
	return lines
}

// fill is an image of w×h in c.
func fill(w, h int, c color.Color) *image.RGBA {
	m := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(m, m.Bounds(), image.NewUniform(c), image.Point{}, draw.Src)
	return m
}

// framed is a surface of w×h in c inside a frame of band pixels in edge.
func framed(w, h int, c, edge color.RGBA, band int) *image.RGBA {
	m := fill(w, h, edge)
	draw.Draw(m, image.Rect(band, band, w-band, h-band), image.NewUniform(c), image.Point{}, draw.Src)
	return m
}

// shot is how a flat surface (a page, a label, a sign) is photographed:
// where its corners land in a picture of outW×outH, what is around it,
// the light across the picture and the sensor's noise.
type shot struct {
	outW, outH int
	// corners: where the surface's top left, top right, bottom right and
	// bottom left land in the picture.
	corners [4][2]float64
	// around is the colour of the picture outside the surface at x, y.
	around func(x, y int) color.RGBA
	// light multiplies each pixel, by where it is (0..1 across, down).
	light func(u, v float64) float64
	// noise is the sensor noise's standard deviation, of 255.
	noise float64
	// soft blurs the picture a little, as a lens slightly out of focus.
	soft bool
	seed uint64
}

// photograph renders surface as s says.
func photograph(surface *image.RGBA, s shot) *image.RGBA {
	sw, sh := float64(surface.Bounds().Dx()), float64(surface.Bounds().Dy())
	src := [4][2]float64{{0, 0}, {sw, 0}, {sw, sh}, {0, sh}}
	h := homography(s.corners, src) // picture -> surface
	out := image.NewRGBA(image.Rect(0, 0, s.outW, s.outH))
	// 2×2 samples a pixel: a surface seen smaller than it is drawn is not
	// aliased.
	offs := [4][2]float64{{0.25, 0.25}, {0.75, 0.25}, {0.25, 0.75}, {0.75, 0.75}}
	for y := 0; y < s.outH; y++ {
		for x := 0; x < s.outW; x++ {
			var r, g, b float64
			var bg color.RGBA
			outside := false
			for _, o := range offs {
				px, py := float64(x)+o[0], float64(y)+o[1]
				w := h[6]*px + h[7]*py + h[8]
				u, v := (h[0]*px+h[1]*py+h[2])/w, (h[3]*px+h[4]*py+h[5])/w
				if u >= 0 && v >= 0 && u < sw && v < sh {
					cr, cg, cb := bilinear(surface, u-0.5, v-0.5)
					r, g, b = r+cr, g+cg, b+cb
				} else {
					if !outside {
						bg, outside = s.around(x, y), true
					}
					r, g, b = r+float64(bg.R), g+float64(bg.G), b+float64(bg.B)
				}
			}
			i := out.PixOffset(x, y)
			out.Pix[i], out.Pix[i+1], out.Pix[i+2], out.Pix[i+3] = uint8(r/4+0.5), uint8(g/4+0.5), uint8(b/4+0.5), 255
		}
	}
	if s.soft {
		out = blur(out)
	}
	rng := rand.New(rand.NewPCG(s.seed, 0x5eed))
	for y := 0; y < s.outH; y++ {
		for x := 0; x < s.outW; x++ {
			l := s.light(float64(x)/float64(s.outW), float64(y)/float64(s.outH))
			lum := rng.NormFloat64() * s.noise * 0.7
			i := out.PixOffset(x, y)
			for c := range 3 {
				v := float64(out.Pix[i+c])*l + lum + rng.NormFloat64()*s.noise*0.5
				out.Pix[i+c] = uint8(math.Round(math.Max(0, math.Min(255, v))))
			}
		}
	}
	return out
}

// bilinear samples m at (u, v), pixel centres at whole numbers.
func bilinear(m *image.RGBA, u, v float64) (r, g, b float64) {
	w, h := m.Bounds().Dx(), m.Bounds().Dy()
	x0, y0 := int(math.Floor(u)), int(math.Floor(v))
	fx, fy := u-float64(x0), v-float64(y0)
	at := func(x, y int) (float64, float64, float64) {
		x, y = max(0, min(w-1, x)), max(0, min(h-1, y))
		i := m.PixOffset(x, y)
		return float64(m.Pix[i]), float64(m.Pix[i+1]), float64(m.Pix[i+2])
	}
	r00, g00, b00 := at(x0, y0)
	r10, g10, b10 := at(x0+1, y0)
	r01, g01, b01 := at(x0, y0+1)
	r11, g11, b11 := at(x0+1, y0+1)
	mix := func(a, b, c, d float64) float64 {
		return (a*(1-fx)+b*fx)*(1-fy) + (c*(1-fx)+d*fx)*fy
	}
	return mix(r00, r10, r01, r11), mix(g00, g10, g01, g11), mix(b00, b10, b01, b11)
}

// blur is m through a 3×3 binomial filter.
func blur(m *image.RGBA) *image.RGBA {
	w, h := m.Bounds().Dx(), m.Bounds().Dy()
	out := image.NewRGBA(m.Bounds())
	k := [3]int{1, 2, 1}
	for y := range h {
		for x := range w {
			var sum [3]int
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					i := m.PixOffset(max(0, min(w-1, x+dx)), max(0, min(h-1, y+dy)))
					f := k[dx+1] * k[dy+1]
					for c := range 3 {
						sum[c] += f * int(m.Pix[i+c])
					}
				}
			}
			i := out.PixOffset(x, y)
			for c := range 3 {
				out.Pix[i+c] = uint8((sum[c] + 8) / 16)
			}
			out.Pix[i+3] = 255
		}
	}
	return out
}

// homography is the 3×3 projective map (row by row, h[8] = 1) that takes
// each point of from to the same point of to.
func homography(from, to [4][2]float64) [9]float64 {
	// a·h = b: two equations for each pair of points.
	var a [8][9]float64
	for i := range 4 {
		x, y, u, v := from[i][0], from[i][1], to[i][0], to[i][1]
		a[2*i] = [9]float64{x, y, 1, 0, 0, 0, -u * x, -u * y, u}
		a[2*i+1] = [9]float64{0, 0, 0, x, y, 1, -v * x, -v * y, v}
	}
	// Gauss-Jordan with partial pivoting.
	for c := range 8 {
		p := c
		for r := c + 1; r < 8; r++ {
			if math.Abs(a[r][c]) > math.Abs(a[p][c]) {
				p = r
			}
		}
		a[c], a[p] = a[p], a[c]
		for r := range 8 {
			if r == c || a[r][c] == 0 {
				continue
			}
			f := a[r][c] / a[c][c]
			for k := c; k < 9; k++ {
				a[r][k] -= f * a[c][k]
			}
		}
	}
	var h [9]float64
	for i := range 8 {
		h[i] = a[i][8] / a[i][i]
	}
	h[8] = 1
	return h
}

// turned gives the corners of a w×h surface turned deg degrees about the
// centre of an outW×outH picture, scaled by scale.
func turned(w, h, outW, outH int, deg, scale float64) [4][2]float64 {
	cx, cy := float64(outW)/2, float64(outH)/2
	s, c := math.Sincos(deg * math.Pi / 180)
	var q [4][2]float64
	for i, p := range [4][2]float64{{0, 0}, {float64(w), 0}, {float64(w), float64(h)}, {0, float64(h)}} {
		x, y := (p[0]-float64(w)/2)*scale, (p[1]-float64(h)/2)*scale
		q[i] = [2]float64{cx + x*c - y*s, cy + x*s + y*c}
	}
	return q
}

// hash is a small deterministic hash of a cell, for textures.
func hash(x, y int, seed uint64) uint64 {
	z := uint64(x)*0x9e3779b97f4a7c15 ^ uint64(y)*0xbf58476d1ce4e5b9 ^ seed
	z ^= z >> 31
	z *= 0x94d049bb133111eb
	z ^= z >> 29
	return z
}

// shade is c made lighter or darker by f (1: as it is).
func shade(c color.RGBA, f float64) color.RGBA {
	sc := func(v uint8) uint8 { return uint8(math.Max(0, math.Min(255, float64(v)*f))) }
	return color.RGBA{sc(c.R), sc(c.G), sc(c.B), 255}
}
