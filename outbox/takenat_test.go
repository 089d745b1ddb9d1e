package outbox

import (
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sparkfamily/spark/engine/enginetest"
	"github.com/sparkfamily/spark/outbox/photo/phototest"
)

// withDateTaken puts an EXIF APP1 segment right after a JPEG's
// start-of-image marker: a big-endian TIFF block whose Exif sub-IFD holds
// DateTimeOriginal and, when offset is not empty, OffsetTimeOriginal.
func withDateTaken(tb testing.TB, jpg []byte, date, offset string) []byte {
	tb.Helper()
	be := binary.BigEndian
	type tag struct {
		id   uint16
		text string
	}
	tags := []tag{{0x9003, date}}
	if offset != "" {
		tags = append(tags, tag{0x9011, offset})
	}
	const ifd0 = 8
	const exifIFD = ifd0 + 2 + 12 + 4 // IFD0 holds only the Exif pointer
	dataAt := exifIFD + 2 + 12*len(tags) + 4
	tiff := []byte("MM\x00\x2a")
	tiff = be.AppendUint32(tiff, ifd0)
	tiff = be.AppendUint16(tiff, 1)
	tiff = be.AppendUint16(tiff, 0x8769) // Exif IFD pointer, LONG
	tiff = be.AppendUint16(tiff, 4)
	tiff = be.AppendUint32(tiff, 1)
	tiff = be.AppendUint32(tiff, exifIFD)
	tiff = be.AppendUint32(tiff, 0) // no next IFD
	tiff = be.AppendUint16(tiff, uint16(len(tags)))
	var data []byte
	for _, t := range tags {
		v := append([]byte(t.text), 0)
		if len(v) <= 4 {
			tb.Fatalf("tag %#x value %q is short enough to sit in its entry; this helper puts values after the IFD", t.id, t.text)
		}
		tiff = be.AppendUint16(tiff, t.id)
		tiff = be.AppendUint16(tiff, 2) // ASCII
		tiff = be.AppendUint32(tiff, uint32(len(v)))
		tiff = be.AppendUint32(tiff, uint32(dataAt+len(data)))
		data = append(data, v...)
	}
	tiff = be.AppendUint32(tiff, 0)
	tiff = append(tiff, data...)
	body := append([]byte("Exif\x00\x00"), tiff...)
	seg := be.AppendUint16([]byte{0xff, 0xe1}, uint16(len(body)+2))
	out := append([]byte{}, jpg[:2]...)
	out = append(out, seg...)
	out = append(out, body...)
	return append(out, jpg[2:]...)
}

// TestOutbox_CaptureTakenAt checks that a moment's taken_at is the photo's
// EXIF date when it has one and the file's modification time otherwise,
// both in the outbox and on the moment the engine creates.
func TestOutbox_CaptureTakenAt(t *testing.T) {
	src := t.TempDir()
	mtime := time.Date(2026, 11, 30, 9, 15, 0, 0, time.UTC)
	write := func(name string, b []byte) string {
		t.Helper()
		p := filepath.Join(src, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name string
		path string
		want time.Time
	}{
		{
			name: "EXIFWithOffset",
			path: write("zoned.jpg", withDateTaken(t, phototest.JPEG(64, 48, 300), "2019:10:26 16:07:24", "+02:00")),
			want: time.Date(2019, 10, 26, 14, 7, 24, 0, time.UTC),
		},
		{
			// Without an offset the camera's clock is read as local time.
			name: "EXIFLocal",
			path: write("local.jpg", withDateTaken(t, phototest.JPEG(64, 48, 301), "2015:04:10 20:12:23", "")),
			want: time.Date(2015, 4, 10, 20, 12, 23, 0, time.Local).UTC(),
		},
		{
			name: "UnsetClockFallsBackToMtime",
			path: write("unset.jpg", withDateTaken(t, phototest.JPEG(64, 48, 302), "0000:00:00 00:00:00", "")),
			want: mtime,
		},
		{
			name: "NoEXIFFallsBackToMtime",
			path: write("plain.jpg", phototest.JPEG(64, 48, 303)),
			want: mtime,
		},
	}
	eng := enginetest.Start(t)
	o := openTest(t, "", testOptions())
	ctx := context.Background()
	entryOf := map[string]string{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := mustCapture(t, o, tt.path)[0].Entry
			if e == nil {
				t.Fatalf("no entry for %s", tt.path)
			}
			entryOf[tt.name] = e.ID
			if e.TakenAt == nil || !e.TakenAt.Equal(tt.want) {
				t.Errorf("captured TakenAt = %v, want %v", e.TakenAt, tt.want)
			}
			stored, err := o.Entry(ctx, e.ID)
			if err != nil {
				t.Fatal(err)
			}
			if stored.TakenAt == nil || !stored.TakenAt.Equal(tt.want) {
				t.Errorf("stored TakenAt = %v, want %v", stored.TakenAt, tt.want)
			}
		})
	}
	o.SetTarget(Target{URL: eng.URL, Token: eng.Token})
	startDrain(t, o)
	if c := settle(t, o, 20*time.Second); c != (Counts{Done: len(tests)}) {
		t.Fatalf("counts = %+v, want %d done", c, len(tests))
	}
	for _, tt := range tests {
		t.Run(tt.name+"/Moment", func(t *testing.T) {
			id, ok := entryOf[tt.name]
			if !ok {
				t.Skip("not captured")
			}
			e, err := o.Entry(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			m, err := eng.Engine.Moment(ctx, e.MomentID)
			if err != nil {
				t.Fatalf("moment %s: %v", e.MomentID, err)
			}
			if m.TakenAt == nil || !m.TakenAt.Equal(tt.want) {
				t.Errorf("moment taken_at = %v, want %v", m.TakenAt, tt.want)
			}
		})
	}
}
