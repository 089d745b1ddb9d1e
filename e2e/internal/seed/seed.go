// Package seed makes the e2e tests' photos and fills an engine with many
// small photo moments for the performance figures: the harness's
// /test/seed (over HTTP, into the app's engine or the family engine) and
// the seed command (into an engine's folder before the app starts).
package seed

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/jpeg"
	"math"
	"math/rand/v2"
	"sync"
)

// Photo draws a simple landscape (sky, sun, hills) in colours picked by
// seed, with grain when noisy so it does not compress much.
func Photo(seed, w, h, quality int, noisy bool) []byte {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	rnd := rand.New(rand.NewPCG(uint64(seed), 7))
	hue := rnd.Float64()
	sunX, sunY, sunR := float64(w)*(0.2+0.6*rnd.Float64()), float64(h)*0.3, float64(h)*0.1
	for y := range h {
		for x := range w {
			fy := float64(y) / float64(h)
			hill := 0.62 + 0.08*math.Sin(float64(x)/float64(w)*6+hue*10)
			var c color.RGBA
			switch {
			case math.Hypot(float64(x)-sunX, float64(y)-sunY) < sunR:
				c = color.RGBA{255, 214, 102, 255}
			case fy < hill:
				c = color.RGBA{uint8(90 + 100*fy), uint8(150 + 80*fy), uint8(200 + 40*hue), 255}
			default:
				c = color.RGBA{uint8(60 + 80*hue), uint8(120 + 60*(1-fy)), 70, 255}
			}
			if noisy {
				n := uint8(rnd.IntN(48))
				c.R, c.G, c.B = c.R^n, c.G^n, c.B^n
			}
			img.SetRGBA(x, y, c)
		}
	}
	var b bytes.Buffer
	jpeg.Encode(&b, img, &jpeg.Options{Quality: quality})
	return b.Bytes()
}

// ThumbEdge is the edge of the square small copies Moments gives.
const ThumbEdge = 320

// Moments calls put for i from 0 to n-1, 16 at a time, with one of eight
// small copies (ThumbEdge-pixel square JPEGs) for moment i. It returns the
// first error, once every put has run.
func Moments(ctx context.Context, n int, put func(ctx context.Context, i int, thumb []byte) error) error {
	return MomentsSized(ctx, n, ThumbEdge, ThumbEdge, put)
}

// MomentsSized is Moments with small copies of w by h pixels: 1600x1200
// is the size a camera photo's small copy has, which is what the window
// shows in a real folder.
func MomentsSized(ctx context.Context, n, w, h int, put func(ctx context.Context, i int, thumb []byte) error) error {
	thumbs := make([][]byte, 8)
	for i := range thumbs {
		thumbs[i] = Photo(1000+i, w, h, 80, false)
	}
	next := make(chan int)
	errs := make(chan error, 1)
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for i := range next {
				if err := put(ctx, i, thumbs[i%len(thumbs)]); err != nil {
					select {
					case errs <- err:
					default:
					}
				}
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	select {
	case err := <-errs:
		return err
	default:
		return nil
	}
}
