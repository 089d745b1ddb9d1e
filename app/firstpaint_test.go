package app

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

// TestFirstPaint_LoggedOnce: the window's mark is one log line per start,
// with the time since the app was made, however often the screen redraws.
func TestFirstPaint_LoggedOnce(t *testing.T) {
	var b bytes.Buffer
	a := New(Options{Logger: slog.New(slog.NewTextHandler(&b, nil))})
	for _, tiles := range []int{24, 30, 0} {
		if err := a.Moments.FirstPaint(tiles); err != nil {
			t.Fatalf("FirstPaint(%d): %v", tiles, err)
		}
	}
	if n := strings.Count(b.String(), `msg="moments first paint"`); n != 1 {
		t.Fatalf("logged %d first paints, want 1:\n%s", n, b.String())
	}
	for _, want := range []string{"since_start=", "tiles=24 ", `from="this computer's engine"`} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, b.String())
		}
	}
}
