package photo

import (
	"bytes"
	"context"
	"github.com/sparkfamily/spark/internal/racebuild"
	"image"
	"image/jpeg"
	"io"
	"path/filepath"
	"strings"
	"testing"
)

// TestSmallCopy_SharedPhotos makes the small copy of every real photo in
// ../shared/photos and checks it is upright at the right size.
func TestSmallCopy_SharedPhotos(t *testing.T) {
	dir := sharedPhotos(t)
	// The rotated ones, spelled out: a portrait result proves the
	// orientation was applied.
	want := map[string]image.Point{
		"canon_sx60_2048x1536_orient6.jpg":      {1200, 1600},
		"synthetic_24mp_6000x4000_orient6.jpg":  {1067, 1600},
		"iphone13promax_4032x3024_orient6.heic": {1200, 1600},
	}
	for _, f := range photoFiles(t, dir, ".jpg", ".heic") {
		name := filepath.Base(f)
		t.Run(name, func(t *testing.T) {
			if testing.Short() && !strings.Contains(name, "orient") {
				t.Skip("-short: only the rotated photos")
			}
			if racebuild.Enabled && name != "canon_sx60_2048x1536_orient6.jpg" && name != "iphone13promax_4032x3024_orient6.heic" {
				t.Skip("race detector on: only the real rotated JPEG and the HEIC; run without -race for every photo")
			}
			info := probeFile(t, f)
			var out bytes.Buffer
			res, err := SmallCopy(context.Background(), f, &out, Options{})
			if err != nil {
				t.Fatal(err)
			}
			uw, uh := info.Upright()
			w, h := fitSize(uw, uh, DefaultMaxEdge)
			wantSize := image.Pt(w, h)
			if p, ok := want[name]; ok {
				wantSize = p
			}
			if got := image.Pt(res.Width, res.Height); got != wantSize {
				t.Errorf("small copy is %v, want %v (source %+v)", got, wantSize, info)
			}
			cfg, err := jpeg.DecodeConfig(&out)
			if err != nil {
				t.Fatalf("the small copy is not a JPEG: %v", err)
			}
			if cfg.Width != res.Width || cfg.Height != res.Height {
				t.Errorf("JPEG is %dx%d, Result says %dx%d", cfg.Width, cfg.Height, res.Width, res.Height)
			}
		})
	}
}

// TestShrink_SharedPhotoQuality checks the two-stage resize against one
// Lanczos pass on a real rotated photo.
func TestShrink_SharedPhotoQuality(t *testing.T) {
	if racebuild.Enabled {
		t.Skip("race detector on: TestShrink_Quality covers the resize; run without -race for the real photo")
	}
	f := filepath.Join(sharedPhotos(t), "canon_sx60_2048x1536_orient6.jpg")
	img, info, err := Decode(context.Background(), f, Options{})
	if err != nil {
		t.Skipf("photo not usable here: %v", err)
	}
	if p := PSNR(Shrink(img, info.Orientation, 1600), Reference(img, info.Orientation, 1600)); p < 38 {
		t.Errorf("PSNR = %.1f dB against one Lanczos pass, want >= 38", p)
	}
}

// BenchmarkSmallCopy times the small copy of each real photo.
func BenchmarkSmallCopy(b *testing.B) {
	dir := sharedPhotos(b)
	files, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil {
		b.Fatal(err)
	}
	if err := Warm(context.Background()); err != nil {
		b.Fatal(err)
	}
	for _, f := range files {
		ext := strings.ToLower(filepath.Ext(f))
		if ext != ".jpg" && ext != ".heic" {
			continue
		}
		b.Run(filepath.Base(f), func(b *testing.B) {
			defer reportCPU(b)()
			for b.Loop() {
				if _, err := SmallCopy(context.Background(), f, io.Discard, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
