package jpeg

import (
	"bytes"
	"image"
	stdjpeg "image/jpeg"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// allocated returns the fewest bytes fn allocated in three runs: other
// goroutines of the test binary allocate too, never fewer.
func allocated(fn func()) uint64 {
	least := ^uint64(0)
	for range 3 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		fn()
		runtime.ReadMemStats(&after)
		least = min(least, after.TotalAlloc-before.TotalAlloc)
	}
	return least
}

// Footprint is at least what DecodeScaled allocates, for every layout of
// the test pictures (progressive or not, 4:4:4 to 4:1:0, gray, RGB, CMYK)
// at every scale, and for photos of a small copy's size, where it is also
// no more than twice that: it bounds memory without wasting it.
func TestFootprint(t *testing.T) {
	files, err := filepath.Glob("testdata/*.jpeg")
	if err != nil || len(files) == 0 {
		t.Fatalf("no test pictures: %v", err)
	}
	pics := map[string][]byte{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		pics[filepath.Base(f)] = b
	}
	big := map[string]bool{}
	for name, m := range map[string]image.Image{
		"1600x1200 4:2:0": image.NewYCbCr(image.Rect(0, 0, 1600, 1200), image.YCbCrSubsampleRatio420),
		"1600x1200 gray":  image.NewGray(image.Rect(0, 0, 1600, 1200)),
	} {
		var b bytes.Buffer
		if err := stdjpeg.Encode(&b, m, nil); err != nil {
			t.Fatal(err)
		}
		pics[name], big[name] = b.Bytes(), true
	}
	for name, b := range pics {
		for _, scale := range []int{1, 2, 4, 8} {
			want, cfg, err := Footprint(bytes.NewReader(b), scale)
			if err != nil {
				if _, derr := DecodeScaled(bytes.NewReader(b), scale); derr == nil {
					t.Errorf("%s: Footprint: %v, but it decodes", name, err)
				}
				continue
			}
			if c, err := DecodeConfig(bytes.NewReader(b)); err != nil || c != cfg {
				t.Errorf("%s: Footprint's config %+v; DecodeConfig's %+v, %v", name, cfg, c, err)
			}
			var derr error
			got := allocated(func() { _, derr = DecodeScaled(bytes.NewReader(b), scale) })
			if derr != nil {
				continue // truncated on purpose
			}
			if int64(got) > want {
				t.Errorf("%s at 1/%d: DecodeScaled allocated %d bytes, more than the %d of its Footprint", name, scale, got, want)
			}
			if big[name] && want > 2*int64(got) {
				t.Errorf("%s at 1/%d: Footprint %d bytes, more than twice the %d DecodeScaled allocated", name, scale, want, got)
			}
		}
	}
	if _, _, err := Footprint(bytes.NewReader(pics["video-001.jpeg"]), 3); err == nil {
		t.Error("Footprint at 1/3: no error")
	}
}
