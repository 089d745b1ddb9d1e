package photo

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"image"
	"image/png"
	"io"
	"os"
	"sync"

	"golang.org/x/image/webp"

	"github.com/sparkfamily/spark/outbox/photo/internal/heifwasm"
	scaledjpeg "github.com/sparkfamily/spark/outbox/photo/internal/jpeg"
)

// Defaults used for zero fields of Options.
const (
	DefaultMaxEdge   = 1600
	DefaultQuality   = 85
	DefaultMaxPixels = 100_000_000
)

// Options tune SmallCopy; the zero value gives Spark's small copy.
type Options struct {
	// MaxEdge is the longest edge of the small copy in pixels
	// (DefaultMaxEdge when zero). Smaller pictures keep their size.
	MaxEdge int
	// Quality is the JPEG quality, 1 to 100 (DefaultQuality when zero).
	Quality int
	// MaxPixels refuses larger pictures before decoding them
	// (DefaultMaxPixels when zero).
	MaxPixels int64
}

func (o Options) withDefaults() Options {
	if o.MaxEdge <= 0 {
		o.MaxEdge = DefaultMaxEdge
	}
	if o.Quality <= 0 {
		o.Quality = DefaultQuality
	}
	o.Quality = min(o.Quality, 100)
	if o.MaxPixels <= 0 {
		o.MaxPixels = DefaultMaxPixels
	}
	return o
}

// Result describes a small copy.
type Result struct {
	// Source is what the original's headers say.
	Source Info
	// Width and Height are the small copy's, upright.
	Width, Height int
}

// SmallCopy writes to w an upright JPEG of the photo at path whose long edge
// is at most opts.MaxEdge. It reads the headers first and refuses, before
// decoding, a picture of more than opts.MaxPixels. Errors name the file and
// wrap ErrEmpty, ErrUnsupported, ErrCorrupt or ErrTooLarge, or the
// operating system's error for a missing or unreadable file; ctx is checked
// between the phases. Nothing is written to w unless the whole picture was
// decoded and shrunk.
func SmallCopy(ctx context.Context, path string, w io.Writer, opts Options) (Result, error) {
	small, res, err := SmallPicture(ctx, path, opts)
	if err != nil {
		return res, err
	}
	return encodeSmall(w, small, res, path, opts.withDefaults())
}

// encodeSmall writes the small picture of the photo name as a JPEG.
func encodeSmall(w io.Writer, small image.Image, res Result, name string, opts Options) (Result, error) {
	if err := scaledjpeg.Encode(w, small, &scaledjpeg.Options{Quality: opts.Quality}); err != nil {
		return Result{Source: res.Source}, fmt.Errorf("write the small copy of %s: %w", name, err)
	}
	return res, nil
}

// SmallCopyOf is SmallCopy for a photo already read or open: r holds it,
// and name says which photo it is in errors. The window's tiles are made
// with it from a small copy held in memory.
func SmallCopyOf(ctx context.Context, name string, r io.ReadSeeker, w io.Writer, opts Options) (Result, error) {
	opts = opts.withDefaults()
	img, info, orientation, err := decodeReader(ctx, name, r, opts, opts.MaxEdge)
	if err != nil {
		return Result{Source: info}, err
	}
	small, res, err := shrunk(ctx, img, info, orientation, opts.MaxEdge)
	if err != nil {
		return res, err
	}
	return encodeSmall(w, small, res, name, opts)
}

// SmallPicture returns the upright picture that SmallCopy encodes, with
// the same checks and errors. A JPEG is decoded at the largest of 1/8,
// 1/4 and 1/2 of its size that still has at least the small copy's
// pixels (the inverse DCT computes the reduced picture directly), and the
// resize does the rest; the tiles of a HEIC are decoded at once.
func SmallPicture(ctx context.Context, path string, opts Options) (image.Image, Result, error) {
	opts = opts.withDefaults()
	img, info, orientation, err := decodeFile(ctx, path, opts, opts.MaxEdge)
	if err != nil {
		return nil, Result{Source: info}, err
	}
	return shrunk(ctx, img, info, orientation, opts.MaxEdge)
}

// shrunk turns a decoded picture upright and fits it in a maxEdge square.
// From here on only the small picture is live: the decoded one is garbage
// while the encoder runs.
func shrunk(ctx context.Context, img image.Image, info Info, orientation, maxEdge int) (image.Image, Result, error) {
	uw, uh := info.Upright()
	w, h := fitSize(uw, uh, maxEdge)
	if swapsAxes(orientation) {
		w, h = h, w
	}
	small := shrinkTo(img, w, h, orientation)
	if err := ctx.Err(); err != nil {
		return nil, Result{Source: info}, err
	}
	b := small.Bounds()
	return small, Result{Source: info, Width: b.Dx(), Height: b.Dy()}, nil
}

// Decode probes the photo at path, checks its size against opts.MaxPixels
// and decodes it at full size. The picture is as stored for JPEG, PNG and
// WebP (apply info.Orientation yourself), and already upright for HEIC.
// Errors are those of SmallCopy.
func Decode(ctx context.Context, path string, opts Options) (image.Image, Info, error) {
	img, info, orientation, err := decodeFile(ctx, path, opts.withDefaults(), 0)
	if err != nil {
		return nil, info, err
	}
	if info.Format == FormatHEIC && orientation != 1 {
		img = orientImage(img, orientation)
	}
	return img, info, nil
}

// decodeFile probes the photo at path, checks its size against
// opts.MaxPixels and decodes it: at full size when maxEdge is 0, else a
// JPEG at the smallest of its reduced sizes that still holds a maxEdge
// small copy. It also returns the orientation still to apply to the
// picture: info.Orientation, or 1 for a HEIC that libheif has turned
// upright itself.
func decodeFile(ctx context.Context, path string, opts Options, maxEdge int) (image.Image, Info, int, error) {
	if err := ctx.Err(); err != nil {
		return nil, Info{}, 0, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, Info{}, 0, &readError{path: path, err: err}
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil {
		return nil, Info{}, 0, &readError{path: path, err: err}
	} else if st.IsDir() {
		return nil, Info{}, 0, fmt.Errorf("cannot read %s: it is a folder, not a photo", path)
	}
	return decodeReader(ctx, path, f, opts, maxEdge)
}

// decodeReader is decodeFile for a photo already open as f, which path
// names in errors.
func decodeReader(ctx context.Context, path string, f io.ReadSeeker, opts Options, maxEdge int) (image.Image, Info, int, error) {
	if err := ctx.Err(); err != nil {
		return nil, Info{}, 0, err
	}
	info, err := Probe(f)
	if err != nil {
		if errors.Is(err, ErrEmpty) || errors.Is(err, ErrUnsupported) || errors.Is(err, ErrCorrupt) {
			return nil, info, 0, fmt.Errorf("%s: %w", path, err)
		}
		return nil, info, 0, &readError{path: path, err: err}
	}
	if px := int64(info.Width) * int64(info.Height); px > opts.MaxPixels {
		return nil, info, 0, fmt.Errorf("%s: %w: %dx%d is %.1f megapixels, more than the limit of %.0f megapixels; scale it down before adding it",
			path, ErrTooLarge, info.Width, info.Height, float64(px)/1e6, float64(opts.MaxPixels)/1e6)
	}
	if err := ctx.Err(); err != nil {
		return nil, info, 0, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, info, 0, &readError{path: path, err: err}
	}
	// The size the decoder must give, since the pixel limit was checked
	// against the header: the header's, reduced for a scaled JPEG.
	want := image.Pt(info.Width, info.Height)
	scale := 1
	if info.Format == FormatJPEG && maxEdge > 0 {
		w, h := fitSize(info.Width, info.Height, maxEdge)
		scale = scaledjpeg.ChooseScale(info.Width, info.Height, w, h)
		want.X, want.Y = scaledjpeg.ScaledSize(info.Width, info.Height, scale)
	}
	img, orientation, err := decode(ctx, info, f, scale)
	if err != nil {
		var re *readError
		if errors.As(err, &re) {
			re.path = path
			return nil, info, 0, re
		}
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return nil, info, 0, err
		}
		return nil, info, 0, fmt.Errorf("%s: %w", path, err)
	}
	if info.Format == FormatHEIC && orientation == 1 && swapsAxes(info.Orientation) {
		want.X, want.Y = want.Y, want.X // libheif turned it upright
	}
	if b := img.Bounds().Size(); b != want {
		return nil, info, 0, fmt.Errorf("%s: %w: the header says %dx%d but the picture is %dx%d", path, ErrCorrupt, want.X, want.Y, b.X, b.Y)
	}
	return img, info, orientation, ctx.Err()
}

// bufPool recycles the read buffers of the decoders.
var bufPool = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 64<<10) }}

// decode decodes a whole picture of a probed format, a JPEG at 1/scale,
// and returns the orientation still to apply to it (see decodeFile). A
// decoder's panic, which some raise on crafted input, becomes ErrCorrupt.
func decode(ctx context.Context, info Info, f io.ReadSeeker, scale int) (img image.Image, orientation int, err error) {
	format := info.Format
	defer func() {
		if r := recover(); r != nil {
			img = nil
			err = fmt.Errorf("%w: the %s decoder failed (%v); copy the file again from its source", ErrCorrupt, formatName(format), r)
		}
	}()
	orientation = info.Orientation
	br := bufPool.Get().(*bufio.Reader)
	br.Reset(&osReader{f})
	defer func() {
		br.Reset(nil)
		bufPool.Put(br)
	}()
	switch format {
	case FormatJPEG:
		img, err = scaledjpeg.DecodeScaled(br, scale)
	case FormatPNG:
		img, err = png.Decode(br)
	case FormatWebP:
		img, err = webp.Decode(br)
	case FormatHEIC:
		img, orientation, err = decodeHEIF(ctx, &osReadSeeker{f}, info)
	}
	if err == nil {
		return img, orientation, nil
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrUnsupported) {
		return nil, 0, err
	}
	var re *osError
	if errors.As(err, &re) {
		return nil, 0, &readError{err: re.err}
	}
	var ju scaledjpeg.UnsupportedError
	var pu png.UnsupportedError
	if errors.As(err, &ju) || errors.As(err, &pu) {
		return nil, 0, fmt.Errorf("%w: a %s variant this decoder cannot read (%v); %s, so re-save it as a plain JPEG or PNG", ErrUnsupported, formatName(format), err, supported)
	}
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return nil, 0, fmt.Errorf("%w: cannot decode the %s data (%v); the file may be cut short or damaged, so copy it again from its source", ErrCorrupt, formatName(format), err)
}

// repairHEICCorner undoes a flaw of gen2brain/heic v0.4.5's WebAssembly
// path: it frees the module's output buffer before handing out the planes
// that alias it, and the allocator writes its bookkeeping over the first
// bytes, the leftmost pixels of the top row of Y. Those pixels take the
// values of the row below, which no one can tell apart.
func repairHEICCorner(img image.Image) {
	const clobbered = 32
	m, ok := img.(*image.YCbCr)
	if !ok || m.Rect.Dy() < 2 {
		return
	}
	n := min(clobbered, m.Rect.Dx())
	copy(m.Y[:n], m.Y[m.YStride:m.YStride+n])
}

// osReader marks the file's own read errors, so that a failing disk is
// reported as unreadable, not as a damaged picture.
type osReader struct{ f io.Reader }

type osError struct{ err error }

func (e *osError) Error() string { return e.err.Error() }
func (e *osError) Unwrap() error { return e.err }

func (r *osReader) Read(p []byte) (int, error) {
	n, err := r.f.Read(p)
	if err != nil && err != io.EOF {
		err = &osError{err}
	}
	return n, err
}

// osReadSeeker is osReader for the HEIC decoder, which seeks.
type osReadSeeker struct{ f io.ReadSeeker }

func (r *osReadSeeker) Read(p []byte) (int, error) { return (&osReader{r.f}).Read(p) }

func (r *osReadSeeker) Seek(off int64, whence int) (int64, error) {
	n, err := r.f.Seek(off, whence)
	if err != nil {
		err = &osError{err}
	}
	return n, err
}

// Warm starts the HEIC decoder's one-time compile (about a second) in the
// background, so the first HEIC photo does not pay for it on the user's
// path, and waits for it until ctx is done. Call it at start-up, in a
// goroutine or with a short-lived ctx; the compile goes on either way.
// With a ctx that is already done it returns ctx.Err() at once, whether or
// not the compile has finished.
func Warm(ctx context.Context) error {
	done := make(chan error, 1)
	go func() { done <- heifwasm.Compile() }()
	if err := ctx.Err(); err != nil {
		return err
	}
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}
