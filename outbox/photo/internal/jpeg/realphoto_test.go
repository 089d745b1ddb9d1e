package jpeg

import (
	"bytes"
	"github.com/sparkfamily/spark/internal/racebuild"
	stdjpeg "image/jpeg"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sharedPhotos returns the real test photos of ../shared/photos beside
// the repository, found by walking up from the test's folder, or skips.
func sharedPhotos(tb testing.TB) map[string][]byte {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		p := filepath.Join(dir, "shared", "photos")
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			files, _ := filepath.Glob(filepath.Join(p, "*.jpg"))
			out := map[string][]byte{}
			for _, f := range files {
				b, err := os.ReadFile(f)
				if err != nil {
					tb.Fatal(err)
				}
				out[strings.TrimSuffix(filepath.Base(f), ".jpg")] = b
			}
			return out
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Skip("no shared/photos folder beside the repository")
		}
		dir = parent
	}
}

// TestRealPhotos decodes the real photos at scale 1 as image/jpeg does.
func TestRealPhotos(t *testing.T) {
	if racebuild.Enabled {
		t.Skip("race detector on: the standard test pictures cover the decoder")
	}
	for name, b := range sharedPhotos(t) {
		t.Run(name, func(t *testing.T) {
			if testing.Short() {
				t.Skip("-short")
			}
			want, err := stdjpeg.Decode(bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			got, err := Decode(bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			if diff := samePixels(got, want); diff != "" {
				t.Fatal(diff)
			}
		})
	}
}

// BenchmarkRealPhotos decodes each real photo at scales 1 and 2 and with
// image/jpeg.
func BenchmarkRealPhotos(b *testing.B) {
	for name, data := range sharedPhotos(b) {
		for _, scale := range []int{1, 2} {
			b.Run(name+"/"+string(rune('0'+scale)), func(b *testing.B) {
				defer reportCPU(b)()
				for b.Loop() {
					if _, err := DecodeScaled(bytes.NewReader(data), scale); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
		b.Run(name+"/image-jpeg", func(b *testing.B) {
			for b.Loop() {
				if _, err := stdjpeg.Decode(bytes.NewReader(data)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSmallCopyDecode decodes every real photo at the scale its small
// copy (long edge 1,600 pixels) is decoded at, one after the other: the
// decoder's share of a small copy, the figure its changes are measured by
// (docs/PHOTO.md, "What the fork changes, and what each earns").
func BenchmarkSmallCopyDecode(b *testing.B) {
	photos := sharedPhotos(b)
	type job struct {
		data  []byte
		scale int
	}
	var jobs []job
	for _, data := range photos {
		cfg, err := DecodeConfig(bytes.NewReader(data))
		if err != nil {
			b.Fatal(err)
		}
		w, h := cfg.Width*1600/max(cfg.Width, cfg.Height), cfg.Height*1600/max(cfg.Width, cfg.Height)
		jobs = append(jobs, job{data, ChooseScale(cfg.Width, cfg.Height, w, h)})
	}
	defer reportCPU(b)()
	for b.Loop() {
		for _, j := range jobs {
			if _, err := DecodeScaled(bytes.NewReader(j.data), j.scale); err != nil {
				b.Fatal(err)
			}
		}
	}
}
