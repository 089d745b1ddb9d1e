package photo

import (
	"image"

	"github.com/sparkfamily/spark/outbox/photo/phototest"
)

// PSNR is phototest.PSNR, for the tests.
func PSNR(a, b image.Image) float64 { return phototest.PSNR(a, b) }

// Reference is phototest.Reference for a picture fitted into a maxEdge
// square as Shrink fits it, for the tests.
func Reference(img image.Image, orientation, maxEdge int) image.Image {
	b := img.Bounds()
	w, h := fitSize(b.Dx(), b.Dy(), maxEdge)
	return phototest.Reference(img, orientation, w, h)
}
