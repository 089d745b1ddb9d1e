package app

import (
	"context"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/wailsapp/wails/v2/pkg/runtime"
)

// Shell is what the app needs from the window around it: events to the UI
// and the system dialogs. WailsShell is the real one; the end-to-end
// harness supplies its own, so the same bound methods run in a browser.
type Shell interface {
	// Emit sends an event to the UI (runtime.EventsEmit).
	Emit(event string, data any)
	// OpenFiles asks for photos; nil when the user cancels.
	OpenFiles(d FileDialog) ([]string, error)
	// OpenFolder asks for a folder; "" when the user cancels.
	OpenFolder(d FileDialog) (string, error)
	// Reveal opens a folder in the system's file manager.
	Reveal(path string)
}

// WailsShell is the Shell of the real window; ctx is the one Wails gives
// OnStartup.
func WailsShell(ctx context.Context) Shell { return wailsShell{ctx} }

type wailsShell struct{ ctx context.Context }

func (s wailsShell) Emit(event string, data any) { runtime.EventsEmit(s.ctx, event, data) }

// photoPattern is what the photos filter of the file dialog shows: the
// kinds of photo Spark reads (outbox/photo).
const photoPattern = "*.jpg;*.jpeg;*.png;*.webp;*.heic;*.heif;*.JPG;*.JPEG;*.PNG;*.WEBP;*.HEIC;*.HEIF"

func (s wailsShell) OpenFiles(d FileDialog) ([]string, error) {
	var filters []runtime.FileFilter
	if d.Photos != "" {
		filters = append(filters, runtime.FileFilter{DisplayName: d.Photos, Pattern: photoPattern})
	}
	if d.All != "" {
		filters = append(filters, runtime.FileFilter{DisplayName: d.All, Pattern: "*"})
	}
	return runtime.OpenMultipleFilesDialog(s.ctx, runtime.OpenDialogOptions{Title: d.Title, Filters: filters})
}

func (s wailsShell) OpenFolder(d FileDialog) (string, error) {
	return runtime.OpenDirectoryDialog(s.ctx, runtime.OpenDialogOptions{Title: d.Title})
}

// FileDialog is what a system file dialog says. The window's words
// (frontend/src/words.ts) give it through the bindings that open one, so
// every sentence Dad reads comes from one place; the system draws it.
type FileDialog struct {
	Title string `json:"title"`
	// Photos and All name the file dialog's two filters (photos, and every
	// file); a filter left unnamed is not offered.
	Photos string `json:"photos,omitempty"`
	All    string `json:"all,omitempty"`
}

// maxDialogWords bounds each of a dialog's texts, in letters.
const maxDialogWords = 200

// clean is d as a dialog may show it: valid UTF-8, control characters as
// spaces, each text at most maxDialogWords letters.
func (d FileDialog) clean() FileDialog {
	return FileDialog{Title: dialogText(d.Title), Photos: dialogText(d.Photos), All: dialogText(d.All)}
}

func dialogText(s string) string {
	s = strings.ToValidUTF8(s, "")
	s = strings.Join(strings.FieldsFunc(s, func(r rune) bool { return unicode.IsControl(r) || unicode.IsSpace(r) }), " ")
	if utf8.RuneCountInString(s) > maxDialogWords {
		s = string([]rune(s)[:maxDialogWords])
	}
	return s
}

func (s wailsShell) Reveal(path string) { runtime.BrowserOpenURL(s.ctx, fileURL(path)) }
