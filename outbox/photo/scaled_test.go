package photo

import (
	"context"
	"encoding/binary"
	"fmt"
	"github.com/sparkfamily/spark/internal/racebuild"
	"path/filepath"
	"testing"
)

// checkScaledQuality checks that the small picture of the JPEG at path,
// decoded at a reduced size, is within 1 dB PSNR of the same resize of the
// full-size decode, both measured against one Lanczos pass over the full
// picture.
func checkScaledQuality(t *testing.T, path string, opts Options) {
	t.Helper()
	small, res, err := SmallPicture(context.Background(), path, opts)
	if err != nil {
		t.Fatal(err)
	}
	full, info, err := Decode(context.Background(), path, opts)
	if err != nil {
		t.Fatal(err)
	}
	edge := opts.withDefaults().MaxEdge
	ref := Reference(full, info.Orientation, edge)
	viaFull := Shrink(full, info.Orientation, edge)
	if small.Bounds() != viaFull.Bounds() || res.Width != small.Bounds().Dx() {
		t.Fatalf("small picture %v (Result %dx%d), the full decode's %v", small.Bounds(), res.Width, res.Height, viaFull.Bounds())
	}
	scaled, direct := PSNR(small, ref), PSNR(viaFull, ref)
	t.Logf("%s: %.1f dB decoded at a reduced size, %.1f dB from the full size", filepath.Base(path), scaled, direct)
	if scaled < direct-1 {
		t.Errorf("%.1f dB decoded at a reduced size, %.1f dB from the full size: more than 1 dB lost", scaled, direct)
	}
}

// TestSmallPicture_ScaledJPEG checks the reduced decodes (1/2, 1/4 and
// 1/8, chosen by the small copy's size) against a full decode.
func TestSmallPicture_ScaledJPEG(t *testing.T) {
	src := noisy(1280, 960)
	for _, o := range []int{1, 6} {
		path := writeFile(t, "noisy.jpg", encodeJPEG(t, src, o, binary.BigEndian))
		// 1/2, 1/4 and 1/8 of 1280x960 hold 600, 300 and 150 px.
		for _, edge := range []int{600, 300, 150, 100} {
			t.Run(fmt.Sprintf("o%d-edge%d", o, edge), func(t *testing.T) {
				checkScaledQuality(t, path, Options{MaxEdge: edge})
			})
		}
	}
}

// TestSmallPicture_ScaledSharedPhotos does the same for the real JPEGs.
func TestSmallPicture_ScaledSharedPhotos(t *testing.T) {
	if racebuild.Enabled {
		t.Skip("race detector on: TestSmallPicture_ScaledJPEG covers the reduced decodes")
	}
	files, err := filepath.Glob(filepath.Join(sharedPhotos(t), "*.jpg"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			if testing.Short() {
				t.Skip("-short")
			}
			checkScaledQuality(t, f, Options{})
		})
	}
}
