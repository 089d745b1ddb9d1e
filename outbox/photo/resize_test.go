package photo

import (
	"image"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestOrientPlane(t *testing.T) {
	// A 5x3 plane of distinct values, turned by orientPlane and by
	// imaging (through orient on a gray-in-NRGBA copy), must agree.
	p := newPlane(5, 3)
	for i := range p.pix {
		p.pix[i] = uint8(10 + i)
	}
	m := image.NewNRGBA(image.Rect(0, 0, 5, 3))
	for i, v := range p.pix {
		m.Pix[4*i], m.Pix[4*i+3] = v, 255
	}
	for o := 1; o <= 8; o++ {
		got := orientPlane(p, o)
		want := orient(m, o)
		if got.w != want.Rect.Dx() || got.h != want.Rect.Dy() {
			t.Fatalf("orientation %d: %dx%d, want %v", o, got.w, got.h, want.Rect.Size())
		}
		var wantPix []uint8
		for i := 0; i < len(want.Pix); i += 4 {
			wantPix = append(wantPix, want.Pix[i])
		}
		if diff := cmp.Diff(wantPix, got.pix); diff != "" {
			t.Errorf("orientation %d (-want +got):\n%s", o, diff)
		}
	}
}

func TestComposeOrientation(t *testing.T) {
	inverse := [9]int{0, 1, 2, 3, 4, 5, 8, 7, 6}
	for o := 1; o <= 8; o++ {
		if got := composeOrientation(o, inverse[o]); got != 1 {
			t.Errorf("compose(%d, inverse %d) = %d, want 1", o, inverse[o], got)
		}
		if got := composeOrientation(1, o); got != o {
			t.Errorf("compose(1, %d) = %d", o, got)
		}
	}
	// Two quarter turns clockwise are a half turn; a mirror then a half
	// turn is the other mirror.
	if got := composeOrientation(6, 6); got != 3 {
		t.Errorf("compose(6, 6) = %d, want 3", got)
	}
	if got := composeOrientation(2, 3); got != 4 {
		t.Errorf("compose(2, 3) = %d, want 4", got)
	}
}

func TestBoxShrink(t *testing.T) {
	p := plane{w: 5, h: 3, stride: 6, pix: []uint8{
		0, 2, 4, 6, 9, 99,
		2, 4, 6, 8, 9, 99,
		10, 10, 20, 20, 30, 99,
	}}
	got := boxShrink(p, 2, 2)
	want := []uint8{2, 6, 9, 10, 20, 30}
	if got.w != 3 || got.h != 2 || !cmp.Equal(got.pix, want) {
		t.Errorf("boxShrink = %dx%d %v, want 3x2 %v", got.w, got.h, got.pix, want)
	}
	got = boxShrink(p, 3, 1)
	want = []uint8{2, 8, 4, 9, 13, 25}
	if got.w != 2 || got.h != 3 || !cmp.Equal(got.pix, want) {
		t.Errorf("boxShrink(3, 1) = %dx%d %v, want 2x3 %v", got.w, got.h, got.pix, want)
	}
}

func TestResample_Flat(t *testing.T) {
	// The weights sum to one, so a flat plane stays flat at any scale,
	// edges included.
	p := newPlane(97, 61)
	for i := range p.pix {
		p.pix[i] = 200
	}
	for _, sz := range [][2]int{{40, 25}, {96, 60}, {13, 61}, {3, 2}, {1, 1}} {
		d := shrinkPlane(p, sz[0], sz[1], 2)
		for i, v := range d.pix {
			if v != 200 {
				t.Fatalf("%v: pixel %d = %d, want 200", sz, i, v)
			}
		}
	}
}

// BenchmarkShrinkPlane resizes a 12 MP luma plane to 1600x1200.
func BenchmarkShrinkPlane(b *testing.B) {
	p := newPlane(4032, 3024)
	r := rand.New(rand.NewPCG(1, 1))
	for i := range p.pix {
		p.pix[i] = uint8(r.UintN(256))
	}
	for _, bands := range []int{1, 2} {
		b.Run(map[int]string{1: "OneBand", 2: "TwoBands"}[bands], func(b *testing.B) {
			for b.Loop() {
				shrinkPlane(p, 1600, 1200, bands)
			}
		})
	}
}

func TestShrink_OddSizes(t *testing.T) {
	ratios := []image.YCbCrSubsampleRatio{image.YCbCrSubsampleRatio420, image.YCbCrSubsampleRatio422,
		image.YCbCrSubsampleRatio444, image.YCbCrSubsampleRatio440, image.YCbCrSubsampleRatio411, image.YCbCrSubsampleRatio410}
	const edge = 16 // small, so that every case is cheap under the race detector
	for _, sz := range [][2]int{{1, 1}, {2, 1}, {1, 3}, {3, 3}, {500, 1}, {1, 499}, {33, 7}, {17, 15}, {16, 16}} {
		w, h := sz[0], sz[1]
		ww, wh := fitSize(w, h, edge)
		for _, o := range []int{1, 5, 6} {
			want := image.Pt(ww, wh)
			if swapsAxes(o) {
				want = image.Pt(wh, ww)
			}
			var imgs []image.Image
			for _, r := range ratios {
				imgs = append(imgs, image.NewYCbCr(image.Rect(0, 0, w, h), r))
			}
			imgs = append(imgs, image.NewGray(image.Rect(0, 0, w, h)), image.NewNRGBA(image.Rect(0, 0, w, h)), image.NewRGBA64(image.Rect(0, 0, w, h)))
			for _, m := range imgs {
				if got := Shrink(m, o, edge).Bounds().Size(); got != want {
					t.Errorf("%T %dx%d orientation %d: %v, want %v", m, w, h, o, got, want)
				}
			}
		}
	}
}
