package photo

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestProbe_Taken(t *testing.T) {
	q := quadrants(16, 8)
	le, be := binary.LittleEndian, binary.BigEndian
	zone := func(h, m int) *time.Location { return time.FixedZone("", (h*60+m)*60) }
	jpegTIFF := func(tiff []byte) []byte { return encodeJPEGWith(t, q, app1(tiff)) }
	lossless := readTestdata(t, "quadrants_lossless.webp")
	// A date-and-offset block used by every container below.
	dated := func(bo byteOrder) []byte {
		return buildTIFF(bo, []testTag{shortTag(0x112, 6, bo)},
			[]testTag{asciiTag(0x9003, "2022:02:16 12:55:41"), asciiTag(0x9011, "+01:00")})
	}
	datedWant := time.Date(2022, 2, 16, 12, 55, 41, 0, zone(1, 0))
	// A text entry whose data offset points far outside the block.
	outside := testTag{0x9003, 2, 20, be.AppendUint32(nil, 0x7fff0000)}
	tests := []struct {
		name string
		data []byte
		want time.Time // zero: unknown
	}{
		{name: "JPEGNoEXIF", data: encodeJPEG(t, q, 0, nil)},
		{name: "JPEGOrientationOnly", data: encodeJPEG(t, q, 6, le)},
		{name: "OriginalWithOffset", data: jpegTIFF(dated(le)), want: datedWant},
		{name: "OriginalWithOffsetBigEndian", data: jpegTIFF(dated(be)), want: datedWant},
		{name: "OriginalLocal", data: jpegTIFF(buildTIFF(le, nil, []testTag{asciiTag(0x9003, "2019:10:26 16:07:24")})),
			want: time.Date(2019, 10, 26, 16, 7, 24, 0, time.Local)},
		{name: "NegativeOffset", data: jpegTIFF(buildTIFF(le, nil, []testTag{asciiTag(0x9003, "2015:04:10 20:12:23"), asciiTag(0x9011, "-05:30")})),
			want: time.Date(2015, 4, 10, 20, 12, 23, 0, zone(-5, -30))},
		{name: "OriginalBeatsDigitizedAndDateTime", data: jpegTIFF(buildTIFF(be,
			[]testTag{asciiTag(0x132, "2021:06:27 19:25:49")},
			[]testTag{asciiTag(0x9003, "2021:06:27 18:23:07"), asciiTag(0x9004, "2021:06:27 18:30:00")})),
			want: time.Date(2021, 6, 27, 18, 23, 7, 0, time.Local)},
		{name: "DigitizedWithItsOffset", data: jpegTIFF(buildTIFF(le,
			[]testTag{asciiTag(0x132, "2021:06:27 19:25:49")},
			[]testTag{asciiTag(0x9004, "2014:08:23 13:05:43"), asciiTag(0x9012, "+09:00"), asciiTag(0x9011, "+03:00")})),
			want: time.Date(2014, 8, 23, 13, 5, 43, 0, zone(9, 0))},
		{name: "DateTimeOnly", data: jpegTIFF(buildTIFF(le, []testTag{asciiTag(0x132, "2015:02:26 04:20:03")}, nil)),
			want: time.Date(2015, 2, 26, 4, 20, 3, 0, time.Local)},
		{name: "DateTimeWithOffsetTime", data: jpegTIFF(buildTIFF(le, []testTag{asciiTag(0x132, "2015:02:26 04:20:03")},
			[]testTag{asciiTag(0x9010, "+00:00")})),
			want: time.Date(2015, 2, 26, 4, 20, 3, 0, time.UTC)},
		// An unset clock is no date; the next tag may still be one.
		{name: "UnsetOriginalFallsBack", data: jpegTIFF(buildTIFF(le, []testTag{asciiTag(0x132, "2018:07:25 16:34:23")},
			[]testTag{asciiTag(0x9003, "0000:00:00 00:00:00")})),
			want: time.Date(2018, 7, 25, 16, 34, 23, 0, time.Local)},
		{name: "UnsetClock", data: jpegTIFF(buildTIFF(le, nil, []testTag{asciiTag(0x9003, "0000:00:00 00:00:00")}))},
		{name: "Blank", data: jpegTIFF(buildTIFF(le, nil, []testTag{asciiTag(0x9003, "    :  :     :  :  ")}))},
		{name: "Before1900", data: jpegTIFF(buildTIFF(le, nil, []testTag{asciiTag(0x9003, "1899:12:31 23:59:59")}))},
		{name: "Year1900", data: jpegTIFF(buildTIFF(le, nil, []testTag{asciiTag(0x9003, "1900:01:01 00:00:00")})),
			want: time.Date(1900, 1, 1, 0, 0, 0, 0, time.Local)},
		{name: "Month13", data: jpegTIFF(buildTIFF(le, nil, []testTag{asciiTag(0x9003, "2020:13:01 10:00:00")}))},
		{name: "February30", data: jpegTIFF(buildTIFF(le, nil, []testTag{asciiTag(0x9003, "2021:02:30 10:00:00")}))},
		{name: "Hour25", data: jpegTIFF(buildTIFF(le, nil, []testTag{asciiTag(0x9003, "2021:02:03 25:00:00")}))},
		{name: "Cut", data: jpegTIFF(buildTIFF(le, nil, []testTag{asciiTag(0x9003, "2021:02:03 10:0")}))},
		{name: "NotText", data: jpegTIFF(buildTIFF(le, nil, []testTag{{0x9003, 4, 1, le.AppendUint32(nil, 20210203)}}))},
		{name: "DataOutsideBlock", data: jpegTIFF(buildTIFF(be, nil, []testTag{outside}))},
		{name: "ISOSeparators", data: jpegTIFF(buildTIFF(le, nil, []testTag{asciiTag(0x9003, "2020-05-01T10:11:12")})),
			want: time.Date(2020, 5, 1, 10, 11, 12, 0, time.Local)},
		{name: "BadOffsetMeansLocal", data: jpegTIFF(buildTIFF(le, nil, []testTag{asciiTag(0x9003, "2020:05:01 10:11:12"), asciiTag(0x9011, "+25:00")})),
			want: time.Date(2020, 5, 1, 10, 11, 12, 0, time.Local)},
		{name: "BlankOffsetMeansLocal", data: jpegTIFF(buildTIFF(le, nil, []testTag{asciiTag(0x9003, "2020:05:01 10:11:12"), asciiTag(0x9011, "   :  ")})),
			want: time.Date(2020, 5, 1, 10, 11, 12, 0, time.Local)},
		// An XMP APP1 before the EXIF one must not hide it.
		{name: "XMPFirst", data: encodeJPEGWith(t, q, []byte("\xff\xe1\x00\x20http://ns.adobe.com/xap/1.0/\x00<x/>"), app1(dated(be))), want: datedWant},
		{name: "PNGeXIf", data: withEXIFChunkTIFF(encodePNG(t, q), dated(be)), want: datedWant},
		{name: "WebPEXIF", data: webpWithEXIFBlock(t, lossless, 128, 96, dated(le)), want: datedWant},
		{name: "WebPEXIFWithHeader", data: webpWithEXIFBlock(t, lossless, 128, 96, app1(dated(le))[4:]), want: datedWant},
		{name: "HEICExifInMdat", data: heifWithExif(40, 30, heifExifPayload(dated(be)), false), want: datedWant},
		{name: "HEICExifInIdat", data: heifWithExif(40, 30, heifExifPayload(dated(le)), true), want: datedWant},
		{name: "HEICExifOffsetZero", data: heifWithExif(40, 30, append([]byte{0, 0, 0, 0}, dated(le)...), false), want: datedWant},
		{name: "HEICExifBadOffset", data: heifWithExif(40, 30, append([]byte{0xff, 0, 0, 0}, dated(le)...), false)},
		{name: "HEICExifCut", data: func() []byte {
			b := heifWithExif(40, 30, heifExifPayload(dated(le)), false)
			return b[:len(b)-10]
		}()},
		{name: "HEICWithoutExif", data: heifHeader(40, 30)},
		{name: "HEICTestdata", data: readTestdata(t, "quadrants.heic")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			info, err := Probe(bytes.NewReader(tt.data))
			if err != nil {
				t.Fatalf("Probe() error = %v", err)
			}
			got := info.Taken
			if got.IsZero() != tt.want.IsZero() || !got.Equal(tt.want) {
				t.Fatalf("Taken = %v, want %v", got, tt.want)
			}
			_, gotOff := got.Zone()
			_, wantOff := tt.want.Zone()
			if gotOff != wantOff {
				t.Errorf("Taken = %v, offset %ds; want offset %ds", got, gotOff, wantOff)
			}
		})
	}
}

func TestParseEXIF_Garbled(t *testing.T) {
	// Every cut and every flipped byte of a valid block must give an
	// orientation in 0..8 and a date that is zero or from 1900 on,
	// without reading out of bounds.
	bo := binary.BigEndian
	block := app1(buildTIFF(bo,
		[]testTag{shortTag(0x112, 6, bo), asciiTag(0x132, "2020:01:02 03:04:05")},
		[]testTag{asciiTag(0x9003, "2019:10:26 16:07:24"), asciiTag(0x9011, "+02:00")}))[4:]
	want := time.Date(2019, 10, 26, 16, 7, 24, 0, time.FixedZone("", 2*3600))
	if got := parseEXIF(block); got.orientation != 6 || !got.taken.Equal(want) {
		t.Fatalf("parseEXIF = %+v, want orientation 6 taken %v", got, want)
	}
	check := func(what string, m exifMeta) {
		t.Helper()
		if m.orientation < 0 || m.orientation > 8 || (!m.taken.IsZero() && m.taken.Year() < 1900) {
			t.Fatalf("%s: %+v", what, m)
		}
	}
	r := rand.New(rand.NewPCG(5, 6))
	for n := range len(block) {
		check(fmt.Sprintf("cut at %d", n), parseEXIF(block[:n]))
	}
	for range 4000 {
		b := append([]byte{}, block...)
		b[r.IntN(len(b))] = byte(r.UintN(256))
		check("garbled", parseEXIF(b))
	}
}

// TestProbe_SharedPhotosTaken reads the date of every real photo in
// ../shared/photos. The expected values are what ImageMagick 6.9.11
// (identify -format '%[EXIF:DateTimeOriginal]|%[EXIF:OffsetTimeOriginal]')
// printed for them; when identify is installed the test asks it again, so
// a photo added later is checked too.
func TestProbe_SharedPhotosTaken(t *testing.T) {
	dir := sharedPhotos(t)
	known := map[string]string{
		"canon_eos1300d_5184x3456.jpg":          "2019:10:26 16:07:24|",
		"canon_sx60_2048x1536_orient6.jpg":      "2015:02:09 22:47:44|",
		"iphone13promax_4032x3024_orient6.heic": "2022:02:16 12:55:41|+01:00",
		"iphone6_3264x2448.jpg":                 "2015:04:10 20:12:23|",
		"nikon_d3s_4256x2832.jpg":               "2021:06:27 18:23:07|",
		"nokia83_4608x1976.jpg":                 "2022:08:14 14:12:31|+03:00",
		"olympus_ep3_4032x3024.jpg":             "2014:08:23 13:05:43|",
		// Its DateTimeDigitized and DateTime say 1970: Original wins.
		"parrot_4608x3456.jpg":                 "2016:01:06 10:11:06|",
		"pixel_4048x3036.jpg":                  "2018:07:25 16:34:23|",
		"synthetic_24mp_6000x4000_orient6.jpg": "2021:06:27 18:23:07|",
	}
	identify, _ := exec.LookPath("identify")
	for _, f := range photoFiles(t, dir, ".jpg", ".jpeg", ".heic") {
		name := filepath.Base(f)
		t.Run(name, func(t *testing.T) {
			info := probeFile(t, f)
			t.Logf("taken %v", info.Taken)
			want, ok := known[name]
			if identify != "" {
				// -ping reads the headers only.
				out, err := exec.Command(identify, "-ping", "-format", "%[EXIF:DateTimeOriginal]|%[EXIF:OffsetTimeOriginal]", f+"[0]").Output()
				if err != nil {
					t.Fatalf("identify: %v", err)
				}
				if ok && string(out) != want {
					t.Fatalf("identify says %q, the table %q: update the table", out, want)
				}
				want, ok = string(out), true
			}
			if !ok {
				t.Skipf("no expected date for %s and no identify to ask", name)
			}
			date, offset, _ := strings.Cut(want, "|")
			if date == "" {
				if !info.Taken.IsZero() {
					t.Logf("no DateTimeOriginal, taken from another tag: %v", info.Taken)
				}
				return
			}
			if got := info.Taken.Format("2006:01:02 15:04:05"); got != date {
				t.Errorf("Taken = %v, want %s", info.Taken, date)
			}
			switch {
			case offset == "" && info.Taken.Location() != time.Local:
				t.Errorf("Taken = %v in %v, want local time", info.Taken, info.Taken.Location())
			case offset != "" && info.Taken.Format("-07:00") != offset:
				t.Errorf("Taken = %v, want offset %s", info.Taken, offset)
			}
		})
	}
}
