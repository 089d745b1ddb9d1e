package photo

import (
	"errors"
	"io/fs"
)

// Sentinel errors for bad input. SmallCopy and Probe wrap them with a
// message that says what was found and what to do, and SmallCopy also names
// the file; test for them with errors.Is.
var (
	// ErrEmpty is returned for a file of zero bytes.
	ErrEmpty = errors.New("the file is empty (0 bytes)")
	// ErrUnsupported is returned for a file that is not JPEG, PNG, WebP or
	// HEIC/HEIF; the message names the format when it is recognised.
	ErrUnsupported = errors.New("unsupported format")
	// ErrCorrupt is returned for truncated or damaged image data; the
	// decoder's own error is part of the message.
	ErrCorrupt = errors.New("damaged or truncated image")
	// ErrTooLarge is returned, before any decoding, for a picture with more
	// pixels than Options.MaxPixels (a decompression bomb, or a panorama too
	// big to shrink safely); the message gives its size and the limit.
	ErrTooLarge = errors.New("picture too large")
)

// supported lists the formats in the words a person reads in a message.
const supported = "Spark reads JPEG, PNG, WebP and HEIC/HEIF photos"

// readError is a missing or unreadable file. It prints the operating
// system's reason once, after the path, and still unwraps to the
// *fs.PathError so errors.Is(err, fs.ErrNotExist) and errors.As work.
type readError struct {
	path string
	err  error
}

func (e *readError) Error() string {
	reason := e.err
	var pe *fs.PathError
	if errors.As(e.err, &pe) {
		reason = pe.Err
	}
	return "cannot read " + e.path + ": " + reason.Error()
}

func (e *readError) Unwrap() error { return e.err }
