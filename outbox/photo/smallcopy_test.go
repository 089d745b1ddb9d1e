package photo

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// smallCopy runs SmallCopy on a file holding data and decodes the result.
func smallCopy(tb testing.TB, name string, data []byte, opts Options) (image.Image, Result) {
	tb.Helper()
	path := writeFile(tb, name, data)
	var out bytes.Buffer
	res, err := SmallCopy(context.Background(), path, &out, opts)
	if err != nil {
		tb.Fatalf("SmallCopy(%s) error = %v", name, err)
	}
	img, err := jpeg.Decode(&out)
	if err != nil {
		tb.Fatalf("the small copy of %s is not a JPEG: %v", name, err)
	}
	if b := img.Bounds(); b.Dx() != res.Width || b.Dy() != res.Height {
		tb.Fatalf("Result says %dx%d, the JPEG is %dx%d", res.Width, res.Height, b.Dx(), b.Dy())
	}
	return img, res
}

func TestSmallCopy_Orientation(t *testing.T) {
	// An upright 96x64 picture stored as a camera would store it for each
	// orientation; the small copy (long edge 48) must be upright 48x32.
	upright := quadrants(96, 64)
	for o := 1; o <= 8; o++ {
		t.Run(fmt.Sprint(o), func(t *testing.T) {
			bo := binary.ByteOrder(binary.LittleEndian)
			if o%2 == 0 {
				bo = binary.BigEndian
			}
			data := encodeJPEG(t, stored(upright, o), o, bo)
			img, res := smallCopy(t, "o.jpg", data, Options{MaxEdge: 48})
			if res.Source.Orientation != o {
				t.Errorf("Source.Orientation = %d, want %d", res.Source.Orientation, o)
			}
			if res.Width != 48 || res.Height != 32 {
				t.Errorf("small copy is %dx%d, want 48x32", res.Width, res.Height)
			}
			checkLooksLike(t, img, upright)
		})
	}
}

func TestSmallCopy_Formats(t *testing.T) {
	q := quadrants(128, 96)
	// A PNG with a transparent band: it must come out white, not black.
	alpha := quadrants(128, 96)
	for y := 0; y < 48; y++ {
		for x := 0; x < 16; x++ {
			alpha.SetNRGBA(x, y, color.NRGBA{0, 0, 0, 0})
		}
	}
	withWhiteBand := quadrants(128, 96)
	for y := 0; y < 48; y++ {
		for x := 0; x < 16; x++ {
			withWhiteBand.SetNRGBA(x, y, white)
		}
	}
	gray := image.NewGray(image.Rect(0, 0, 128, 96))
	for i := range gray.Pix {
		gray.Pix[i] = uint8(i)
	}
	tests := []struct {
		name     string
		data     []byte
		opts     Options
		want     image.Image // upright, at the size of the small copy
		wantSize image.Point
	}{
		{"JPEG444.jpg", encodeJPEG(t, q, 0, nil), Options{}, q, image.Pt(128, 96)},
		{"PNG.png", encodePNG(t, q), Options{MaxEdge: 32}, q, image.Pt(32, 24)},
		{"PNGAlpha.png", encodePNG(t, alpha), Options{}, withWhiteBand, image.Pt(128, 96)},
		{"PNGGray.png", encodePNG(t, gray), Options{MaxEdge: 32}, nil, image.Pt(32, 24)},
		{"PNGeXIf.png", withEXIFChunk(encodePNG(t, q), 6), Options{}, orient(q, 6), image.Pt(96, 128)},
		{"WebPLossless.webp", readTestdata(t, "quadrants_lossless.webp"), Options{}, q, image.Pt(128, 96)},
		{"WebPLossy.webp", readTestdata(t, "quadrants_lossy.webp"), Options{MaxEdge: 32}, q, image.Pt(32, 24)},
		{"WebPEXIF.webp", webpWithEXIF(t, readTestdata(t, "quadrants_lossless.webp"), 128, 96, 8), Options{}, orient(q, 8), image.Pt(96, 128)},
		{"HEIC.heic", readTestdata(t, "quadrants.heic"), Options{MaxEdge: 32}, q, image.Pt(32, 24)},
		// Smaller than the limit: kept at its size, never enlarged.
		{"Small.jpg", encodeJPEG(t, quadrants(40, 30), 6, binary.BigEndian), Options{}, orient(quadrants(40, 30), 6), image.Pt(30, 40)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			img, res := smallCopy(t, tt.name, tt.data, tt.opts)
			if got := image.Pt(res.Width, res.Height); got != tt.wantSize {
				t.Fatalf("small copy is %v, want %v", got, tt.wantSize)
			}
			if tt.want != nil {
				checkLooksLike(t, img, tt.want)
			}
		})
	}
}

func TestSmallCopy_BadInput(t *testing.T) {
	var gifBuf bytes.Buffer
	if err := gif.Encode(&gifBuf, image.NewPaletted(image.Rect(0, 0, 4, 4), color.Palette{color.Black, color.White}), nil); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 4))
	garbage := make([]byte, 4096)
	for i := range garbage {
		garbage[i] = byte(r.UintN(256))
	}
	photoLike := encodeJPEG(t, noisy(300, 200), 0, nil)
	jpegGarbage := append([]byte{0xff, 0xd8, 0xff, 0xe0, 0, 4, 0, 0}, garbage...)

	tests := []struct {
		name    string
		path    func(t *testing.T) string
		wantErr error
		wantMsg []string
	}{
		{"Missing", func(t *testing.T) string { return filepath.Join(t.TempDir(), "gone.jpg") }, fs.ErrNotExist, []string{"cannot read", missingMsg}},
		{"Folder", func(t *testing.T) string { return t.TempDir() }, nil, []string{"cannot read", "folder"}},
		{"Empty", func(t *testing.T) string { return writeFile(t, "empty.jpg", nil) }, ErrEmpty, []string{"0 bytes"}},
		{"TruncatedJPEG", func(t *testing.T) string { return writeFile(t, "cut.jpg", photoLike[:len(photoLike)/2]) }, ErrCorrupt, []string{"JPEG", "cut short"}},
		{"GarbledJPEG", func(t *testing.T) string { return writeFile(t, "garbled.jpg", jpegGarbage) }, ErrCorrupt, []string{"JPEG"}},
		{"Garbage", func(t *testing.T) string { return writeFile(t, "noise.jpg", garbage) }, ErrUnsupported, []string{"JPEG, PNG, WebP and HEIC"}},
		{"GIF", func(t *testing.T) string { return writeFile(t, "anim.gif", gifBuf.Bytes()) }, ErrUnsupported, []string{"GIF"}},
		{"TIFF", func(t *testing.T) string { return writeFile(t, "scan.tif", []byte("MM\x00*\x00\x00\x00\x08tiff body")) }, ErrUnsupported, []string{"TIFF"}},
		{"PNGBomb", func(t *testing.T) string { return writeFile(t, "bomb.png", pngBomb(50000, 50000)) }, ErrTooLarge, []string{"50000x50000", "2500.0 megapixels", "limit of 100"}},
		{"JPEGBomb", func(t *testing.T) string { return writeFile(t, "bomb.jpg", jpegBomb(60000, 40000)) }, ErrTooLarge, []string{"60000x40000"}},
		{"HEICBomb", func(t *testing.T) string { return writeFile(t, "bomb.heic", heifHeader(40000, 30000)) }, ErrTooLarge, []string{"40000x30000"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := tt.path(t)
			var out bytes.Buffer
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			start := time.Now()
			_, err := SmallCopy(context.Background(), path, &out, Options{})
			elapsed := time.Since(start)
			runtime.ReadMemStats(&after)
			if err == nil {
				t.Fatal("SmallCopy() error = nil, want an error")
			}
			if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Fatalf("SmallCopy() error = %v, want %v", err, tt.wantErr)
			}
			msg := err.Error()
			if !strings.Contains(msg, path) {
				t.Errorf("error %q does not name the file", msg)
			}
			for _, m := range tt.wantMsg {
				if !strings.Contains(msg, m) {
					t.Errorf("error %q does not say %q", msg, m)
				}
			}
			if out.Len() != 0 {
				t.Errorf("%d bytes written on error, want none", out.Len())
			}
			if errors.Is(err, ErrTooLarge) {
				// Refused from the header: no time, no picture-sized memory.
				if elapsed > time.Second {
					t.Errorf("refusing took %v", elapsed)
				}
				if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4<<20 {
					t.Errorf("refusing allocated %d bytes, want < 4 MiB", alloc)
				}
			}
		})
	}
}

// missingMsg is how the OS words a missing file in the error. Windows
// words it in the user's language (and Wine otherwise than Windows), so
// there the test checks fs.ErrNotExist alone.
var missingMsg = map[bool]string{true: "cannot read", false: "no such file"}[runtime.GOOS == "windows"]

func TestSmallCopy_Unreadable(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("running as root: file permissions do not stop reading")
	}
	if runtime.GOOS == "windows" {
		t.Skip("Windows: chmod only sets the read-only attribute, which does not stop reading")
	}
	path := writeFile(t, "locked.jpg", encodeJPEG(t, quadrants(8, 8), 0, nil))
	if err := os.Chmod(path, 0); err != nil {
		t.Fatal(err)
	}
	_, err := SmallCopy(context.Background(), path, &bytes.Buffer{}, Options{})
	if !errors.Is(err, fs.ErrPermission) {
		t.Fatalf("SmallCopy() error = %v, want permission denied", err)
	}
	if want := "cannot read " + path + ": permission denied"; err.Error() != want {
		t.Errorf("error = %q, want %q", err, want)
	}
}

func TestSmallCopy_MaxPixels(t *testing.T) {
	path := writeFile(t, "p.jpg", encodeJPEG(t, quadrants(40, 30), 0, nil))
	_, err := SmallCopy(context.Background(), path, &bytes.Buffer{}, Options{MaxPixels: 40*30 - 1})
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("SmallCopy() error = %v, want ErrTooLarge", err)
	}
	if _, err := SmallCopy(context.Background(), path, &bytes.Buffer{}, Options{MaxPixels: 40 * 30}); err != nil {
		t.Fatalf("SmallCopy() at the limit error = %v", err)
	}
}

func TestSmallCopy_Canceled(t *testing.T) {
	path := writeFile(t, "p.jpg", encodeJPEG(t, quadrants(40, 30), 0, nil))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out bytes.Buffer
	if _, err := SmallCopy(ctx, path, &out, Options{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("SmallCopy() error = %v, want context.Canceled", err)
	}
	if out.Len() != 0 {
		t.Errorf("%d bytes written after cancel", out.Len())
	}
}

// TestShrink_Quality shows the two-stage resize keeps the look of one
// Lanczos pass over the full picture.
func TestShrink_Quality(t *testing.T) {
	src := noisy(720, 540)
	// 240 is a plain 3x3 box; 260, 280 and 340 leave the Lanczos stage
	// 10, 9 and 8 taps: each of its code paths.
	for _, edge := range []int{240, 260, 280, 340} {
		for _, o := range []int{1, 6} {
			got := Shrink(src, o, edge)
			want := Reference(src, o, edge)
			if got.Bounds() != want.Bounds() {
				t.Fatalf("edge %d, orientation %d: Shrink gives %v, Reference %v", edge, o, got.Bounds(), want.Bounds())
			}
			if p := PSNR(got, want); p < 38 {
				t.Errorf("edge %d, orientation %d: PSNR = %.1f dB against one Lanczos pass, want >= 38", edge, o, p)
			}
		}
	}
}

func TestWarm(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	// A done ctx returns at once; the compile goes on in the background.
	if err := Warm(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Warm(canceled) = %v, want context.Canceled", err)
	}
	if err := Warm(context.Background()); err != nil {
		t.Fatalf("Warm() = %v", err)
	}
}

// TestSmallCopyOf checks that a photo held in memory gets the very bytes
// its file would, and that its errors are SmallCopy's, naming the photo.
func TestSmallCopyOf(t *testing.T) {
	q := quadrants(128, 96)
	for _, tt := range []struct {
		name string
		data []byte
	}{
		{"JPEG.jpg", encodeJPEG(t, q, 6, binary.BigEndian)},
		{"PNG.png", encodePNG(t, q)},
		{"HEIC.heic", readTestdata(t, "quadrants.heic")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			opts := Options{MaxEdge: 40}
			var fromFile, fromMemory bytes.Buffer
			want, err := SmallCopy(context.Background(), writeFile(t, tt.name, tt.data), &fromFile, opts)
			if err != nil {
				t.Fatal(err)
			}
			got, err := SmallCopyOf(context.Background(), tt.name, bytes.NewReader(tt.data), &fromMemory, opts)
			if err != nil {
				t.Fatalf("SmallCopyOf error = %v", err)
			}
			if got != want || !bytes.Equal(fromMemory.Bytes(), fromFile.Bytes()) {
				t.Errorf("SmallCopyOf gave %+v and %d bytes, SmallCopy %+v and %d bytes", got, fromMemory.Len(), want, fromFile.Len())
			}
		})
	}
	cut := encodeJPEG(t, q, 0, nil)
	cut = cut[:len(cut)/2]
	var out bytes.Buffer
	_, err := SmallCopyOf(context.Background(), "moment 42", bytes.NewReader(cut), &out, Options{})
	if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "moment 42") {
		t.Errorf("a cut JPEG: error = %v, want ErrCorrupt naming the photo", err)
	}
	if out.Len() != 0 {
		t.Errorf("a cut JPEG wrote %d bytes", out.Len())
	}
}
