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
	// The page began 100 ms after the app; its first page of Moments came
	// 50 ms later, the App was drawn at 60, the tiles at 75.
	origin := float64(a.paint.made.UnixMicro())/1000 + 100
	marks := PaintMarks{Origin: origin, Script: 20, FirstPage: 50, App: 60, Tiles: 75}
	for _, tiles := range []int{24, 30, 0} {
		if err := a.Moments.FirstPaint(tiles, marks); err != nil {
			t.Fatalf("FirstPaint(%d): %v", tiles, err)
		}
	}
	if n := strings.Count(b.String(), `msg="moments first paint"`); n != 1 {
		t.Fatalf("logged %d first paints, want 1:\n%s", n, b.String())
	}
	for _, want := range []string{"since_start=", "tiles=24 ", `from="this computer's engine"`,
		"page_at=100ms", "script_at=120ms", "first_page_at=150ms", "app_at=160ms", "tiles_at=175ms"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, b.String())
		}
	}
}

// A page that says nothing of its marks (an older window) logs none.
func TestFirstPaint_NoMarks(t *testing.T) {
	var b bytes.Buffer
	a := New(Options{Logger: slog.New(slog.NewTextHandler(&b, nil))})
	if err := a.Moments.FirstPaint(3, PaintMarks{}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "_at=") {
		t.Errorf("marks logged without a page origin:\n%s", b.String())
	}
}
