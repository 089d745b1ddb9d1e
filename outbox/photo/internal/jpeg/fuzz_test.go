package jpeg

import (
	"bytes"
	"image"
	stdjpeg "image/jpeg"
	"os"
	"path/filepath"
	"testing"
)

// FuzzDecode decodes damaged JPEGs at scale 1 and at a reduced scale. It
// must not panic; a picture it returns has the size ScaledSize promises;
// at scale 1 it agrees with image/jpeg on whether the data decodes, and on
// the pixels when it does. The seeds are small, so that each run is quick
// and the fuzzer's minimizing of new inputs does not eat the time.
func FuzzDecode(f *testing.F) {
	for _, name := range []string{"video-005.gray.q50.progressive.jpeg", "video-001.q50.420.progressive.jpeg", "video-001.restart2.jpeg"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for i, sz := range [][2]int{{16, 16}, {40, 24}, {9, 33}} {
		var buf bytes.Buffer
		if err := stdjpeg.Encode(&buf, photoLike(sz[0], sz[1], uint64(i)), &stdjpeg.Options{Quality: 60}); err != nil {
			f.Fatal(err)
		}
		f.Add(buf.Bytes())
	}
	defer func(n int) { parallelBlocks = n }(parallelBlocks)
	f.Fuzz(func(t *testing.T, b []byte) {
		cfg, err := DecodeConfig(bytes.NewReader(b))
		if err != nil || cfg.Width*cfg.Height > 1<<18 {
			return
		}
		// Half the inputs take the path of a large picture, the inverse
		// DCTs in a second goroutine.
		parallelBlocks = 4 * batchBlocks * (len(b) % 2)
		want, wantErr := stdjpeg.Decode(bytes.NewReader(b))
		for _, scale := range []int{1, 2 << (len(b) % 3)} {
			img, err := DecodeScaled(bytes.NewReader(b), scale)
			if scale == 1 && (err == nil) != (wantErr == nil) {
				// Both fail on bad data, not always with the same
				// message, but never one alone.
				t.Fatalf("scale 1: error %v, image/jpeg's %v", err, wantErr)
			}
			if err != nil {
				continue
			}
			w, h := ScaledSize(cfg.Width, cfg.Height, scale)
			if got := img.Bounds(); got != image.Rect(0, 0, w, h) {
				t.Fatalf("scale %d: bounds %v, want %dx%d", scale, got, w, h)
			}
			if scale == 1 {
				if diff := samePixels(img, want); diff != "" {
					t.Fatalf("scale 1 differs from image/jpeg: %s", diff)
				}
			}
		}
	})
}
