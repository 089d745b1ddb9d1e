package photo

import "testing"

func BenchmarkPlaneY(b *testing.B) {
	p := newPlane(4032, 3024)
	for i := range p.pix {
		p.pix[i] = uint8(i * 7)
	}
	b.Run("box", func(b *testing.B) {
		for b.Loop() {
			boxShrink(p, 2, 2)
		}
	})
	q := boxShrink(p, 2, 2)
	b.Run("resample", func(b *testing.B) {
		for b.Loop() {
			resample(q, 2016, 1512, 1600, 1200)
		}
	})
	b.Run("orient6", func(b *testing.B) {
		r := newPlane(1600, 1200)
		for b.Loop() {
			orientPlane(r, 6)
		}
	})
}
