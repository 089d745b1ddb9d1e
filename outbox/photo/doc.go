// Package photo turns a photo file into Spark's small copy: an upright JPEG
// whose long edge is at most 1600 pixels, made from JPEG, PNG, WebP or
// HEIC/HEIF with no system library (HEIC through gen2brain/heic's
// WebAssembly build of libheif, so CGO_ENABLED=0 builds read it too).
//
// Probe reads only a file's headers: its format, its stored size, its
// EXIF orientation and the date it was taken. SmallCopy checks that size
// against a pixel limit before decoding anything, so a decompression bomb
// is refused at once and with little memory; it then decodes, shrinks,
// turns the picture upright and encodes it.
//
// A JPEG is decoded by internal/jpeg, the standard library's decoder with
// libjpeg's reduced inverse DCTs: at 1/2, 1/4 or 1/8 of its size, the
// largest reduction that still holds the small copy (libvips's
// shrink-on-load), so a 12 MP photo becomes 3 MP inside the decoder. The
// tiles of a HEIC grid (48 of 512x512 in an iPhone photo) are decoded at
// once by a few instances of the WebAssembly decoder and pasted together;
// internal/heifwasm keeps those instances from one tile to the next, so a
// photo makes little garbage and the collector seldom has to wait for a
// decoder in the middle of its WebAssembly code.
//
// The shrink works on the decoded planes themselves (Y, Cb and Cr for JPEG
// and HEIC) instead of converting a full-size picture to RGBA: an integer
// box pre-shrink brings each plane to no less than the target size, then a
// Lanczos-3 filter makes the exact size. The orientation is applied last, on
// the small planes, which keeps the peak memory close to the decoded image
// alone. spark-bench measures, with outbox/photo/phototest's PSNR, how close that
// comes to a single-pass Lanczos resize of the full picture.
package photo
