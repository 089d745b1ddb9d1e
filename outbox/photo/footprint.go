package photo

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"image/color"
	"io"

	scaledjpeg "github.com/sparkfamily/spark/outbox/photo/internal/jpeg"
)

// Footprint returns about how many bytes SmallCopyOf allocates to make the
// small copy of the photo in r with opts, from the photo's headers alone,
// before anything is decoded, with what Probe says of the photo. Its
// errors are Probe's, and ErrCorrupt for headers Probe does not read.
//
// It counts what the decoders and the resize allocate, not pixels: the
// picture at the depth its decoder gives it (a PNG of 16 bits a channel
// takes twice the bytes of one of 8, an interlaced PNG twice again; a
// JPEG is counted at the reduced size it is decoded at, with its
// coefficients when it is progressive), the 8-bit copy the resize makes
// of a picture that is not 8-bit RGBA, YCbCr or gray, the resize's planes
// and the small copy. A caller that makes many small copies at once (the
// window's tiles) holds them to a budget of memory with it. For HEIC it
// is rougher: the WebAssembly decoder's memory is its own, outside Go's.
func Footprint(r io.ReadSeeker, opts Options) (Info, int64, error) {
	opts = opts.withDefaults()
	info, err := Probe(r)
	if err != nil {
		return info, 0, err
	}
	size, err := r.Seek(0, io.SeekEnd)
	if err != nil {
		return info, 0, err
	}
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		return info, 0, err
	}
	// The small copy's size, as stored (before the orientation), and the
	// size the picture is decoded at.
	w, h := fitSize(info.Width, info.Height, opts.MaxEdge)
	sw, sh := info.Width, info.Height
	px := int64(sw) * int64(sh)
	var (
		decoded int64
		model   color.Model
	)
	switch info.Format {
	case FormatJPEG:
		scale := scaledjpeg.ChooseScale(info.Width, info.Height, w, h)
		sw, sh = scaledjpeg.ScaledSize(info.Width, info.Height, scale)
		n, cfg, err := scaledjpeg.Footprint(bufio.NewReaderSize(r, 4096), scale)
		if err != nil {
			return info, 0, headerError(FormatJPEG, err)
		}
		decoded, model = n, cfg.ColorModel
	case FormatPNG:
		hd, err := readPNGHeader(r)
		if err != nil {
			return info, 0, headerError(FormatPNG, err)
		}
		model = hd.model()
		decoded = px * bytesPerPixel(model)
		if hd.interlaced {
			// Each pass is a picture of its own, merged at the end.
			decoded *= 2
		}
		// The current and the previous row, unfiltered; the inflater's
		// tables, made again for each block of the stream, up to as many
		// bytes as the file has in all.
		decoded += 2*(1+(int64(sw)*int64(hd.bitsPerPixel())+7)/8) + size
	case FormatWebP:
		kind, err := webpKind(r)
		if err != nil {
			return info, 0, headerError(FormatWebP, err)
		}
		switch kind {
		case "VP8 ": // lossy: 4:2:0
			decoded, model = px*3/2, color.YCbCrModel
		case "ALPH": // lossy with alpha, itself compressed losslessly
			decoded, model = px*8, color.NYCbCrAModel
		default: // lossless: the ARGB pixels, a transform's copy, the picture
			decoded, model = px*12, color.NRGBAModel
		}
	case FormatHEIC:
		// A 4:4:4 picture, and as much again for the decoder's frames.
		decoded, model = px*6, color.YCbCrModel
	}
	n := decoded
	rgb := true // shrinkRGB's way, not the planes' as they are
	switch model {
	case color.YCbCrModel, color.GrayModel:
		rgb = false
	case color.NRGBAModel:
	default:
		n += 4 * int64(sw) * int64(sh) // made 8-bit NRGBA by shrinkRGB
	}
	return info, n + shrinkFootprint(sw, sh, w, h, info.Orientation, rgb), nil
}

// shrinkFootprint is about what shrinkTo and the encoder allocate to make
// a w by h picture of an sw by sh one with orientation o (rgb: by
// shrinkRGB, which splits the picture into three planes, else by shrinking
// its planes as they are): the planes box-shrunk, the Lanczos passes, the
// upright copy, the small picture and its JPEG, and what any decode and
// encode allocate whatever the size. Three planes of the full size are counted where a
// 4:2:0 picture has one and a half.
func shrinkFootprint(sw, sh, w, h, o int, rgb bool) int64 {
	k := max(min(sw/w, sh/h), 1)
	bw, bh := int64((sw+k-1)/k), int64((sh+k-1)/k)
	small := int64(w) * int64(h)
	n := small + 512<<10 // the JPEG; the read buffer, the inflater, the filters' weights, the encoder's tables
	if rgb || k > 1 {
		n += 3 * bw * bh
	}
	if bh != int64(h) {
		n += 3 * bw * int64(h)
	}
	if bw != int64(w) {
		n += 3 * small
	}
	if o > 1 {
		n += 3 * small
	}
	if rgb {
		n += 4 * small
	}
	return n
}

// webpKind names the chunk of the WebP in r that says how its picture is
// decoded: "VP8 " (lossy), "ALPH" (lossy with an alpha channel) or "VP8L"
// (lossless), whether the file is a simple or an extended one.
func webpKind(r io.ReadSeeker) (string, error) {
	if _, err := r.Seek(12, io.SeekStart); err != nil { // RIFF, size, WEBP
		return "", err
	}
	var hdr [8]byte
	for {
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			return "", err
		}
		switch kind := string(hdr[:4]); kind {
		case "VP8 ", "VP8L", "ALPH":
			return kind, nil
		}
		n := int64(binary.LittleEndian.Uint32(hdr[4:]))
		if _, err := r.Seek(n+n&1, io.SeekCurrent); err != nil { // chunks are padded to even sizes
			return "", err
		}
	}
}

// bytesPerPixel is what a picture of color model m takes a pixel.
func bytesPerPixel(m color.Model) int64 {
	switch m {
	case color.GrayModel, color.AlphaModel:
		return 1
	case color.Gray16Model, color.Alpha16Model:
		return 2
	case color.RGBAModel, color.NRGBAModel, color.CMYKModel:
		return 4
	}
	if _, ok := m.(color.Palette); ok {
		return 1
	}
	return 8
}

// pngHeader is what a PNG's chunks before its pixels say about how
// image/png decodes it.
type pngHeader struct {
	depth, colorType byte
	interlaced       bool
	transparent      bool // a tRNS chunk: gray and RGB come out with alpha
}

// PNG color types.
const (
	pngGray      = 0
	pngRGB       = 2
	pngPaletted  = 3
	pngGrayAlpha = 4
	pngRGBA      = 6
)

// model is the color model of the picture image/png.Decode returns.
func (h pngHeader) model() color.Model {
	deep := h.depth == 16
	switch {
	case h.colorType == pngPaletted:
		return color.Palette{}
	case h.colorType == pngGray && !h.transparent:
		if deep {
			return color.Gray16Model
		}
		return color.GrayModel
	case h.colorType == pngRGB && !h.transparent:
		if deep {
			return color.RGBA64Model
		}
		return color.RGBAModel
	case deep:
		return color.NRGBA64Model
	}
	return color.NRGBAModel
}

// bitsPerPixel is a row's bits a pixel, as stored.
func (h pngHeader) bitsPerPixel() int {
	channels := map[byte]int{pngGray: 1, pngRGB: 3, pngPaletted: 1, pngGrayAlpha: 2, pngRGBA: 4}[h.colorType]
	return max(channels, 1) * int(h.depth)
}

// readPNGHeader reads the chunks of the PNG in r up to its first IDAT.
func readPNGHeader(r io.ReadSeeker) (pngHeader, error) {
	var h pngHeader
	br := bufio.NewReaderSize(r, 512)
	if _, err := br.Discard(8); err != nil { // the signature, sniffed
		return h, err
	}
	var head [8]byte
	for first := true; ; first = false {
		if _, err := io.ReadFull(br, head[:]); err != nil {
			return h, err
		}
		n, typ := binary.BigEndian.Uint32(head[:4]), string(head[4:])
		switch {
		case first && (typ != "IHDR" || n != 13):
			return h, fmt.Errorf("the first chunk is %q of %d bytes, not the IHDR", typ, n)
		case first:
			var ihdr [13]byte
			if _, err := io.ReadFull(br, ihdr[:]); err != nil {
				return h, err
			}
			h.depth, h.colorType, h.interlaced = ihdr[8], ihdr[9], ihdr[12] == 1
			n = 0
		case typ == "IDAT":
			return h, nil
		case typ == "tRNS":
			h.transparent = true
		}
		if _, err := br.Discard(int(n) + 4); err != nil { // the data left, the CRC
			return h, err
		}
	}
}
