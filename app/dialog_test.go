package app

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// The system dialogs say the window's words (frontend/src/words.ts), which
// the bindings pass in: Go holds no sentence of its own for them.
func TestDialogs_SayTheWindowsWords(t *testing.T) {
	a, sh := startApp(t, t.TempDir(), nil)
	photos := FileDialog{Title: "Choose photos to add to Spark", Photos: "Photos (JPEG, PNG, WebP, HEIC)", All: "All files"}
	if _, err := a.Capture.ChoosePhotos("b", photos); err != ErrCanceled {
		t.Fatalf("ChoosePhotos() with nothing chosen = %v; want ErrCanceled", err)
	}
	folder := FileDialog{Title: "Choose a folder of photos to import"}
	if _, err := a.Capture.ImportFolder("b", folder); err != ErrCanceled {
		t.Fatalf("ImportFolder() with nothing chosen = %v; want ErrCanceled", err)
	}
	if got := sh.asked(); len(got) != 2 || got[0] != photos || got[1] != folder {
		t.Errorf("the dialogs said %+v; want %+v then %+v", got, photos, folder)
	}
}

// What a dialog says is bounded and printable, whatever the caller passed.
func TestFileDialog_Clean(t *testing.T) {
	tests := []struct {
		name string
		in   FileDialog
		want FileDialog
	}{
		{"kept", FileDialog{Title: "Choose photos", Photos: "Photos", All: "All files"}, FileDialog{Title: "Choose photos", Photos: "Photos", All: "All files"}},
		{"control characters become spaces", FileDialog{Title: "Choose\nphotos\x00now\t"}, FileDialog{Title: "Choose photos now"}},
		{"unnamed filters stay unnamed (not offered)", FileDialog{Title: "T"}, FileDialog{Title: "T"}},
		{"invalid UTF-8 dropped", FileDialog{Title: "Ch\xffoose"}, FileDialog{Title: "Choose"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.in.clean(); got != tt.want {
				t.Errorf("clean(%+v) = %+v; want %+v", tt.in, got, tt.want)
			}
		})
	}
	long := FileDialog{Title: strings.Repeat("é", 1000)}.clean()
	if n := utf8.RuneCountInString(long.Title); n != maxDialogWords {
		t.Errorf("a 1000-letter title kept %d letters; want %d", n, maxDialogWords)
	}
}
