//go:build linux

package main

import (
	"encoding/binary"
	"testing"
	"time"
)

// xwd makes an XWD dump of a w x h screen of 32-bit pixels, little-endian,
// as xwd -root writes Xvfb's, from pixel(x, y).
func xwd(w, h int, pixel func(x, y int) uint32) []byte {
	const headerSize = 100 + 4 // 25 fields and a short window name
	b := make([]byte, headerSize+w*h*4)
	fields := map[int]uint32{0: headerSize, 4: uint32(w), 5: uint32(h), 7: 0, 11: 32, 12: uint32(w * 4), 19: 0}
	for i, v := range fields {
		binary.BigEndian.PutUint32(b[i*4:], v)
	}
	for y := range h {
		for x := range w {
			binary.LittleEndian.PutUint32(b[headerSize+(y*w+x)*4:], pixel(x, y))
		}
	}
	return b
}

func TestCountXWD(t *testing.T) {
	tests := []struct {
		name  string
		pixel func(x, y int) uint32
		want  int
	}{
		{"blank", func(x, y int) uint32 { return 0 }, 1},
		// The byte above the 24 bits of colour is padding, not a colour.
		{"padding ignored", func(x, y int) uint32 { return uint32(x%2) << 24 }, 1},
		{"two", func(x, y int) uint32 { return uint32(x % 2 * 0xfaf6f0) }, 2},
		{"every pixel its own", func(x, y int) uint32 { return uint32(y*64 + x) }, 64 * 32},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := countXWD(xwd(64, 32, tt.pixel))
			if err != nil {
				t.Fatal(err)
			}
			if f.colours != tt.want {
				t.Errorf("colours = %d, want %d", f.colours, tt.want)
			}
		})
	}
	a, _ := countXWD(xwd(8, 8, func(x, y int) uint32 { return 1 }))
	b, _ := countXWD(xwd(8, 8, func(x, y int) uint32 { return uint32(x / 7) }))
	if a.sum == b.sum {
		t.Error("two different screens have the same sum")
	}
	if _, err := countXWD(xwd(8, 8, func(x, y int) uint32 { return 0 })[:120]); err == nil {
		t.Error("a short image was read")
	}
}

func TestPicturesMedian(t *testing.T) {
	ms := time.Millisecond
	for _, tc := range []struct {
		name   string
		starts []start
		want   time.Duration
	}{
		{"every start showed them", []start{{pictures: 500 * ms}, {pictures: 450 * ms}, {pictures: 600 * ms}}, 500 * ms},
		{"one start never did", []start{{pictures: 500 * ms}, {pictures: 0}, {pictures: 600 * ms}}, 0},
		{"no start did (an app without pictures)", []start{{}, {}, {}}, 0},
		{"no starts", nil, 0},
	} {
		if got := picturesMedian(tc.starts); got != tc.want {
			t.Errorf("%s: picturesMedian = %v, want %v", tc.name, got, tc.want)
		}
	}
}
