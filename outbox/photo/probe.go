package photo

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"io"
	"time"
	"unicode/utf8"

	"golang.org/x/image/webp"
)

// Formats reported in Info.Format.
const (
	FormatJPEG = "jpeg"
	FormatPNG  = "png"
	FormatWebP = "webp"
	FormatHEIC = "heic"
)

// Info is what a photo's headers say about it.
type Info struct {
	// Format is one of FormatJPEG, FormatPNG, FormatWebP or FormatHEIC.
	Format string
	// Width and Height are the picture as stored, before the orientation
	// is applied: a portrait photo from a phone held upright is usually
	// stored as a landscape picture with Orientation 6.
	Width, Height int
	// Orientation is the EXIF orientation, 1 to 8; 1 when the file has
	// none. For HEIC it is derived from the irot and imir boxes, which
	// take precedence over EXIF there.
	Orientation int
	// Taken is when the photo was taken, from EXIF: DateTimeOriginal,
	// else DateTimeDigitized, else DateTime, each with its offset tag
	// (OffsetTimeOriginal and so on) for the zone when the file has one.
	// Without an offset the date is read as local time (time.Local), the
	// zone a camera's clock most likely showed. Taken is zero when the
	// file has no usable date: none at all, an unset clock
	// ("0000:00:00 00:00:00"), a year before 1900 or an unparsable value.
	// For HEIC it comes from the Exif item of the meta box.
	Taken time.Time
}

// Upright returns the size of the picture once its orientation is applied.
func (i Info) Upright() (width, height int) {
	if swapsAxes(i.Orientation) {
		return i.Height, i.Width
	}
	return i.Width, i.Height
}

// sniffLen is how many leading bytes sniff looks at.
const sniffLen = 64

// Probe reads the headers of the photo in r (from its start) and reports its
// format, stored size and orientation without decoding the pixels. Errors
// wrap ErrEmpty, ErrUnsupported or ErrCorrupt, or are r's own read errors.
func Probe(r io.ReadSeeker) (Info, error) {
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		return Info{}, err
	}
	head := make([]byte, sniffLen)
	n, err := io.ReadFull(r, head)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return Info{}, err
	}
	head = head[:n]
	if n == 0 {
		return Info{}, fmt.Errorf("%w; it may not have finished copying: copy it again from the camera or phone", ErrEmpty)
	}
	format, other := sniff(head)
	if format == "" {
		return Info{}, fmt.Errorf("%w: %s; %s, so save or export it as one of those first", ErrUnsupported, other, supported)
	}
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		return Info{}, err
	}
	var info Info
	switch format {
	case FormatJPEG:
		info, err = probeJPEG(r)
	case FormatPNG:
		info, err = probeChunks(r, FormatPNG, png.DecodeConfig, pngEXIF)
	case FormatWebP:
		info, err = probeChunks(r, FormatWebP, webp.DecodeConfig, webpEXIF)
	case FormatHEIC:
		info, err = probeHEIF(r)
	}
	if err != nil {
		return Info{}, err
	}
	if info.Width <= 0 || info.Height <= 0 {
		return Info{}, fmt.Errorf("%w: the %s header gives a size of %dx%d pixels", ErrCorrupt, formatName(format), info.Width, info.Height)
	}
	if info.Orientation < 1 || info.Orientation > 8 {
		info.Orientation = 1
	}
	return info, nil
}

// formatName is a format as a person writes it.
func formatName(format string) string {
	switch format {
	case FormatJPEG:
		return "JPEG"
	case FormatPNG:
		return "PNG"
	case FormatWebP:
		return "WebP"
	case FormatHEIC:
		return "HEIC"
	}
	return format
}

// headerError turns a header decoder's error into ErrCorrupt, or into
// ErrUnsupported for a variant of a supported format that Go's decoders do
// not read (such as arithmetic-coded JPEG).
func headerError(format string, err error) error {
	var ju jpeg.UnsupportedError
	var pu png.UnsupportedError
	if errors.As(err, &ju) || errors.As(err, &pu) {
		return fmt.Errorf("%w: a %s variant this decoder cannot read (%v); %s, so re-save it as a plain JPEG or PNG", ErrUnsupported, formatName(format), err, supported)
	}
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("%w: cannot read the %s header (%v); the file may be cut short, so copy it again from its source", ErrCorrupt, formatName(format), err)
}

func probeJPEG(r io.ReadSeeker) (Info, error) {
	br := bufio.NewReaderSize(r, 4096)
	meta, err := jpegEXIF(br)
	if err != nil {
		return Info{}, headerError(FormatJPEG, err)
	}
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		return Info{}, err
	}
	cfg, err := jpeg.DecodeConfig(bufio.NewReaderSize(r, 4096))
	if err != nil {
		return Info{}, headerError(FormatJPEG, err)
	}
	return Info{Format: FormatJPEG, Width: cfg.Width, Height: cfg.Height, Orientation: meta.orientation, Taken: meta.taken}, nil
}

// probeChunks probes a format of chunks (PNG, WebP): the size from its
// header with decodeConfig, then the orientation and date with exif. These
// are a bonus: a damaged chunk after the header is left for the decoder to
// report.
func probeChunks(r io.ReadSeeker, format string, decodeConfig func(io.Reader) (image.Config, error), exif func(io.ReadSeeker) (exifMeta, error)) (Info, error) {
	cfg, err := decodeConfig(bufio.NewReaderSize(r, 512))
	if err != nil {
		return Info{}, headerError(format, err)
	}
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		return Info{}, err
	}
	meta, _ := exif(r)
	return Info{Format: format, Width: cfg.Width, Height: cfg.Height, Orientation: meta.orientation, Taken: meta.taken}, nil
}

// sniff names the format of a file from its first bytes. It returns one of
// the Format constants, or "" and a description of what the file is instead.
func sniff(b []byte) (format, other string) {
	has := func(off int, s string) bool {
		return len(b) >= off+len(s) && string(b[off:off+len(s)]) == s
	}
	switch {
	case has(0, "\xff\xd8\xff"):
		return FormatJPEG, ""
	case has(0, "\x89PNG\r\n\x1a\n"):
		return FormatPNG, ""
	case has(0, "RIFF") && has(8, "WEBP"):
		return FormatWebP, ""
	case has(4, "ftyp"):
		return sniffFtyp(b)
	case has(0, "GIF87a"), has(0, "GIF89a"):
		return "", "this is a GIF image"
	case has(0, "II*\x00") && has(8, "CR"):
		return "", "this is a Canon CR2 raw file"
	case has(0, "IIRO"), has(0, "IIRS"), has(0, "MMOR"):
		return "", "this is an Olympus ORF raw file"
	case has(0, "IIU\x00"):
		return "", "this is a Panasonic RW2 raw file"
	case has(0, "II*\x00"), has(0, "MM\x00*"), has(0, "II+\x00"), has(0, "MM\x00+"):
		return "", "this is a TIFF image or a camera raw file (DNG, NEF, ARW and most raw formats are TIFF inside)"
	case has(0, "FUJIFILMCCD-RAW"):
		return "", "this is a Fujifilm RAF raw file"
	case has(0, "%PDF-"):
		return "", "this is a PDF document"
	case has(0, "BM"):
		return "", "this is a BMP image"
	case has(0, "8BPS"):
		return "", "this is a Photoshop PSD file"
	case has(0, "\xff\x0a"), has(0, "\x00\x00\x00\x0cJXL "):
		return "", "this is a JPEG XL image"
	case has(0, "\x00\x00\x01\x00"):
		return "", "this is an ICO icon"
	case has(0, "PK\x03\x04"):
		return "", "this is a ZIP archive"
	case has(0, "\x1f\x8b"):
		return "", "this is a gzip archive"
	case has(0, "RIFF") && has(8, "AVI "):
		return "", "this is an AVI video"
	case has(0, "\x1a\x45\xdf\xa3"):
		return "", "this is a Matroska or WebM video"
	}
	text := bytes.TrimLeft(b, "\xef\xbb\xbf \t\r\n")
	lower := bytes.ToLower(text)
	switch {
	case bytes.HasPrefix(lower, []byte("<svg")) || (bytes.HasPrefix(lower, []byte("<?xml")) && bytes.Contains(lower, []byte("<svg"))):
		return "", "this is an SVG drawing"
	case bytes.HasPrefix(lower, []byte("<!doctype html")) || bytes.HasPrefix(lower, []byte("<html")):
		return "", "this is an HTML page"
	case isText(b):
		return "", "this is a text file, not a picture"
	}
	return "", "the file does not start like any picture format known here"
}

// isText reports whether b looks like the start of a text file: valid UTF-8
// (allowing a rune cut at the end) without control characters other than
// white space.
func isText(b []byte) bool {
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size <= 1 {
			return len(b) < utf8.UTFMax && !utf8.FullRune(b)
		}
		if r < 0x20 && r != '\t' && r != '\n' && r != '\r' && r != '\f' {
			return false
		}
		b = b[size:]
	}
	return true
}

// sniffFtyp tells HEIC/HEIF apart from the other ISO base media files that
// share its "ftyp" box: AVIF, camera raw CR3 and MP4/MOV video.
func sniffFtyp(b []byte) (format, other string) {
	size := int(uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3]))
	if size > len(b) {
		size = len(b)
	}
	var brands []string
	if size >= 12 {
		brands = append(brands, string(b[8:12]))
	}
	for off := 16; off+4 <= size; off += 4 {
		brands = append(brands, string(b[off:off+4]))
	}
	has := func(names ...string) bool {
		for _, br := range brands {
			for _, n := range names {
				if br == n {
					return true
				}
			}
		}
		return false
	}
	switch {
	case has("heic", "heix", "heim", "heis", "hevc", "hevx", "hevm", "hevs"):
		return FormatHEIC, ""
	case has("avif", "avis"):
		return "", "this is an AVIF image"
	case has("mif1", "msf1"):
		return FormatHEIC, ""
	case has("crx "):
		return "", "this is a Canon CR3 raw file"
	case has("qt  "):
		return "", "this is a QuickTime (MOV) video"
	}
	return "", "this is a video or other ISO media file (MP4, 3GP), not a photo"
}
