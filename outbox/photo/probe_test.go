package photo

import (
	"bytes"
	"encoding/binary"
	"errors"
	"image"
	"image/color"
	"image/gif"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestProbe(t *testing.T) {
	var gifBuf bytes.Buffer
	if err := gif.Encode(&gifBuf, image.NewPaletted(image.Rect(0, 0, 4, 4), color.Palette{color.Black, color.White}), nil); err != nil {
		t.Fatal(err)
	}
	q := quadrants(20, 10)
	lossless := readTestdata(t, "quadrants_lossless.webp")
	jpeg1 := encodeJPEG(t, q, 0, nil)

	tests := []struct {
		name    string
		data    []byte
		want    Info
		wantErr error
		wantMsg string // part of the message
	}{
		{name: "JPEGNoEXIF", data: jpeg1, want: Info{Format: FormatJPEG, Width: 20, Height: 10, Orientation: 1}},
		{name: "JPEGOrientation6", data: encodeJPEG(t, q, 6, binary.LittleEndian), want: Info{Format: FormatJPEG, Width: 20, Height: 10, Orientation: 6}},
		{name: "JPEGOrientation8BigEndian", data: encodeJPEG(t, q, 8, binary.BigEndian), want: Info{Format: FormatJPEG, Width: 20, Height: 10, Orientation: 8}},
		{name: "JPEGOrientationOutOfRange", data: encodeJPEG(t, q, 9, binary.BigEndian), want: Info{Format: FormatJPEG, Width: 20, Height: 10, Orientation: 1}},
		{name: "PNG", data: encodePNG(t, q), want: Info{Format: FormatPNG, Width: 20, Height: 10, Orientation: 1}},
		{name: "PNGeXIf", data: withEXIFChunk(encodePNG(t, q), 3), want: Info{Format: FormatPNG, Width: 20, Height: 10, Orientation: 3}},
		{name: "PNGBombHeader", data: pngBomb(50000, 50000), want: Info{Format: FormatPNG, Width: 50000, Height: 50000, Orientation: 1}},
		{name: "JPEGBombHeader", data: jpegBomb(50000, 50000), want: Info{Format: FormatJPEG, Width: 50000, Height: 50000, Orientation: 1}},
		{name: "WebPLossless", data: lossless, want: Info{Format: FormatWebP, Width: 128, Height: 96, Orientation: 1}},
		{name: "WebPLossy", data: readTestdata(t, "quadrants_lossy.webp"), want: Info{Format: FormatWebP, Width: 128, Height: 96, Orientation: 1}},
		{name: "WebPEXIF", data: webpWithEXIF(t, lossless, 128, 96, 8), want: Info{Format: FormatWebP, Width: 128, Height: 96, Orientation: 8}},
		{name: "HEIC", data: readTestdata(t, "quadrants.heic"), want: Info{Format: FormatHEIC, Width: 128, Height: 96, Orientation: 1}},
		{name: "HEICirot3", data: heifHeader(4032, 3024, [2]any{"irot", byte(3)}), want: Info{Format: FormatHEIC, Width: 4032, Height: 3024, Orientation: 6}},
		{name: "HEICirot1", data: heifHeader(40, 30, [2]any{"irot", byte(1)}), want: Info{Format: FormatHEIC, Width: 40, Height: 30, Orientation: 8}},
		{name: "HEICimirVertical", data: heifHeader(40, 30, [2]any{"imir", byte(0)}), want: Info{Format: FormatHEIC, Width: 40, Height: 30, Orientation: 2}},
		{name: "HEICimirHorizontal", data: heifHeader(40, 30, [2]any{"imir", byte(1)}), want: Info{Format: FormatHEIC, Width: 40, Height: 30, Orientation: 4}},
		// Mirror left to right, then turn a quarter anticlockwise: EXIF 5.
		{name: "HEICimirThenIrot", data: heifHeader(40, 30, [2]any{"imir", byte(0)}, [2]any{"irot", byte(1)}), want: Info{Format: FormatHEIC, Width: 40, Height: 30, Orientation: 5}},

		{name: "Empty", data: nil, wantErr: ErrEmpty, wantMsg: "0 bytes"},
		{name: "GIF", data: gifBuf.Bytes(), wantErr: ErrUnsupported, wantMsg: "GIF"},
		{name: "TIFF", data: []byte("II*\x00\x08\x00\x00\x00rest of a tiff"), wantErr: ErrUnsupported, wantMsg: "TIFF"},
		{name: "CR2", data: []byte("II*\x00\x10\x00\x00\x00CR\x02\x00"), wantErr: ErrUnsupported, wantMsg: "CR2"},
		{name: "PDF", data: []byte("%PDF-1.7\n"), wantErr: ErrUnsupported, wantMsg: "PDF"},
		{name: "Text", data: []byte("just some notes, not a photo\n"), wantErr: ErrUnsupported, wantMsg: "text file"},
		{name: "AVIF", data: heifBox("ftyp", []byte("avif\x00\x00\x00\x00mif1avif")), wantErr: ErrUnsupported, wantMsg: "AVIF"},
		{name: "MP4", data: heifBox("ftyp", []byte("isom\x00\x00\x02\x00isomiso2mp41")), wantErr: ErrUnsupported, wantMsg: "video"},
		{name: "Garbage", data: []byte{0x00, 0x13, 0x88, 0xfe, 0x01, 0x02, 0x9a, 0x00}, wantErr: ErrUnsupported, wantMsg: "JPEG, PNG, WebP and HEIC"},
		{name: "TruncatedJPEGHeader", data: jpeg1[:40], wantErr: ErrCorrupt, wantMsg: "cut short"},
		{name: "TruncatedPNGHeader", data: encodePNG(t, q)[:20], wantErr: ErrCorrupt},
		{name: "HEICWithoutMeta", data: heifBox("ftyp", []byte("heic\x00\x00\x00\x00mif1heic")), wantErr: ErrCorrupt, wantMsg: "HEIC"},
		{name: "HEICWithoutSize", data: heifHeader(40, 30)[:len(heifHeader(40, 30))-30], wantErr: ErrCorrupt},
		{name: "JPEGZeroSize", data: jpegBomb(0, 10), wantErr: ErrCorrupt},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Probe(bytes.NewReader(tt.data))
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("Probe() error = %v, want %v", err, tt.wantErr)
				}
				if !strings.Contains(err.Error(), tt.wantMsg) {
					t.Errorf("Probe() error = %q, want it to mention %q", err, tt.wantMsg)
				}
				return
			}
			if err != nil {
				t.Fatalf("Probe() error = %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Probe() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
