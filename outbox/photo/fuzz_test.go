package photo

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// FuzzProbe feeds Probe damaged headers of every format: it must return
// an error or an Info, never panic or read without bound, and a date is
// either unknown or from 1900 on.
func FuzzProbe(f *testing.F) {
	q := quadrants(16, 8)
	f.Add(encodeJPEG(f, q, 6, binary.BigEndian))
	f.Add(withEXIFChunk(encodePNG(f, q), 3))
	f.Add(webpWithEXIF(f, readTestdata(f, "quadrants_lossless.webp"), 128, 96, 8))
	f.Add(readTestdata(f, "quadrants.heic"))
	f.Add(heifHeader(40, 30, [2]any{"imir", byte(0)}, [2]any{"irot", byte(1)}))
	f.Add(pngBomb(50000, 50000))
	f.Add(jpegBomb(50000, 50000))
	dated := buildTIFF(binary.BigEndian, []testTag{asciiTag(0x132, "2015:02:26 04:20:03")},
		[]testTag{asciiTag(0x9003, "2022:02:16 12:55:41"), asciiTag(0x9011, "+01:00")})
	f.Add(encodeJPEGWith(f, q, app1(dated)))
	f.Add(heifWithExif(40, 30, heifExifPayload(dated), false))
	f.Add(heifWithExif(40, 30, heifExifPayload(dated), true))
	f.Fuzz(func(t *testing.T, data []byte) {
		info, err := Probe(bytes.NewReader(data))
		if err == nil && (info.Width <= 0 || info.Height <= 0 || info.Orientation < 1 || info.Orientation > 8 ||
			(!info.Taken.IsZero() && info.Taken.Year() < 1900)) {
			t.Fatalf("Probe() = %+v without error", info)
		}
	})
}
