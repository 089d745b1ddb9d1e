package jpeg

import (
	"image"
	"image/color"
	"io"
	"unsafe"
)

// decodeOverhead is what a decode allocates whatever the picture's size:
// the batches of blocks between the entropy decoder and the inverse DCT
// (storeAside) and the decoder's tables.
const decodeOverhead = 3*batchBlocks*int64(unsafe.Sizeof(decodedBlock{})) + 64<<10

// Footprint returns about how many bytes DecodeScaled(r, scale) allocates
// for the JPEG in r, from its headers alone (it reads r as DecodeConfig
// does), with the color model and dimensions DecodeConfig would give. It
// counts the planes of the picture at 1/scale, as the decoder lays them
// out (4:2:0 takes half the bytes of 4:4:4), the RGB or CMYK picture an
// RGB or 4-component JPEG is then turned into, and, for a progressive
// JPEG, the coefficients of every block, which it keeps at full size
// between scans (4 bytes a sample, whatever the scale).
func Footprint(r io.Reader, scale int) (int64, image.Config, error) {
	switch scale {
	case 1, 2, 4, 8:
	default:
		return 0, image.Config{}, errBadScale
	}
	d := decoder{scale: scale, bs: 8 / scale}
	if _, err := d.decode(r, true); err != nil {
		return 0, image.Config{}, err
	}
	cfg, err := d.config()
	if err != nil {
		return 0, cfg, err
	}
	// The MCU grid, as processSOS and makeImg lay it out.
	h0, v0 := d.comp[0].h, d.comp[0].v
	mxx := int64((d.width + 8*h0 - 1) / (8 * h0))
	myy := int64((d.height + 8*v0 - 1) / (8 * v0))
	bs := int64(d.bs)
	n := decodeOverhead
	for i := range d.nComp {
		blocks := mxx * int64(d.comp[i].h) * myy * int64(d.comp[i].v)
		n += blocks * bs * bs
		if d.progressive {
			n += blocks * int64(unsafe.Sizeof(block{}))
		}
	}
	if cfg.ColorModel == color.RGBAModel || cfg.ColorModel == color.CMYKModel {
		w, h := ScaledSize(d.width, d.height, scale)
		n += 4 * int64(w) * int64(h)
	}
	return n, cfg, nil
}
