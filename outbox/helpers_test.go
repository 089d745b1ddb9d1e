package outbox

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/jpeg"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// jpegBytes makes a small JPEG whose pixels depend on seed, so each seed
// gives a different file (and SHA-256).
func jpegBytes(tb testing.TB, w, h int, seed uint64) []byte {
	tb.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.Set(x, y, color.RGBA{uint8(r.IntN(256)), uint8(x * 255 / w), uint8(y * 255 / h), 255})
		}
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 80}); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}

// writePhoto writes a generated JPEG into dir/name and returns its path.
func writePhoto(tb testing.TB, dir, name string, seed uint64) string {
	tb.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(p, jpegBytes(tb, 64, 48, seed), 0o644); err != nil {
		tb.Fatal(err)
	}
	return p
}

// testOptions are fast options for tests: short back-off, fixed jitter.
func testOptions() Options {
	return Options{
		BackoffBase: 5 * time.Millisecond,
		BackoffCap:  50 * time.Millisecond,
		Rand:        func() float64 { return 0.5 },
	}
}

// openTest opens an outbox in a temporary folder, closed at cleanup.
func openTest(tb testing.TB, dir string, opts Options) *Outbox {
	tb.Helper()
	if dir == "" {
		dir = tb.TempDir()
	}
	o, err := Open(context.Background(), dir, opts)
	if err != nil {
		tb.Fatalf("Open: %v", err)
	}
	tb.Cleanup(func() { o.Close() })
	return o
}

// listDir returns the names in dir (none when it does not exist).
func listDir(tb testing.TB, dir string) []string {
	tb.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		tb.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// mustCapture captures paths and fails the test on any error.
func mustCapture(tb testing.TB, o *Outbox, paths ...string) []CaptureResult {
	tb.Helper()
	res := o.Capture(context.Background(), paths, CaptureOptions{})
	for _, r := range res {
		if r.Err != nil {
			tb.Fatalf("Capture %s: %v", r.Path, r.Err)
		}
	}
	return res
}
