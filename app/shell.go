package app

import (
	"context"

	"github.com/wailsapp/wails/v2/pkg/runtime"
)

// Shell is what the app needs from the window around it: events to the UI
// and the system dialogs. WailsShell is the real one; the end-to-end
// harness supplies its own, so the same bound methods run in a browser.
type Shell interface {
	// Emit sends an event to the UI (runtime.EventsEmit).
	Emit(event string, data any)
	// OpenFiles asks for photos; nil when the user cancels.
	OpenFiles(title string) ([]string, error)
	// OpenFolder asks for a folder; "" when the user cancels.
	OpenFolder(title string) (string, error)
	// Reveal opens a folder in the system's file manager.
	Reveal(path string)
}

// WailsShell is the Shell of the real window; ctx is the one Wails gives
// OnStartup.
func WailsShell(ctx context.Context) Shell { return wailsShell{ctx} }

type wailsShell struct{ ctx context.Context }

func (s wailsShell) Emit(event string, data any) { runtime.EventsEmit(s.ctx, event, data) }

func (s wailsShell) OpenFiles(title string) ([]string, error) {
	return runtime.OpenMultipleFilesDialog(s.ctx, runtime.OpenDialogOptions{
		Title: title,
		Filters: []runtime.FileFilter{
			{DisplayName: "Photos (JPEG, PNG, WebP, HEIC)", Pattern: "*.jpg;*.jpeg;*.png;*.webp;*.heic;*.heif;*.JPG;*.JPEG;*.PNG;*.WEBP;*.HEIC;*.HEIF"},
			{DisplayName: "All files", Pattern: "*"},
		},
	})
}

func (s wailsShell) OpenFolder(title string) (string, error) {
	return runtime.OpenDirectoryDialog(s.ctx, runtime.OpenDialogOptions{Title: title})
}

func (s wailsShell) Reveal(path string) { runtime.BrowserOpenURL(s.ctx, fileURL(path)) }
