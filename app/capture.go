package app

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/sparkfamily/spark/outbox"
	"github.com/sparkfamily/spark/outbox/photo"
)

// Capture makes photos safe in the outbox: dropped, chosen, imported from a
// folder or pasted. Each file's result is sent on the "capture" event as
// soon as it is safe, so its card shows at once; the call returns them all.
type Capture struct{ a *App }

// Files captures the given files (a drop on the window; the end-to-end
// tests use it too). batch names the batch in the "capture" events.
func (c *Capture) Files(batch string, paths []string) ([]CaptureResult, error) {
	return c.a.capture(batch, paths, false)
}

// FilesAgain captures files even if the outbox has seen the same bytes.
func (c *Capture) FilesAgain(batch string, paths []string) ([]CaptureResult, error) {
	return c.a.capture(batch, paths, true)
}

// ChoosePhotos opens the system's file dialog, saying d, and captures what
// is chosen.
func (c *Capture) ChoosePhotos(batch string, d FileDialog) ([]CaptureResult, error) {
	sh, err := c.a.getShell()
	if err != nil {
		return nil, err
	}
	paths, err := sh.OpenFiles(d.clean())
	if err != nil {
		return nil, fmt.Errorf("open the file dialog: %w", err)
	}
	if len(paths) == 0 {
		return nil, ErrCanceled
	}
	return c.a.capture(batch, paths, false)
}

// ImportFolder asks for a folder, saying d, and captures every photo in it
// and in its subfolders.
func (c *Capture) ImportFolder(batch string, d FileDialog) ([]CaptureResult, error) {
	sh, err := c.a.getShell()
	if err != nil {
		return nil, err
	}
	dir, err := sh.OpenFolder(d.clean())
	if err != nil {
		return nil, fmt.Errorf("open the folder dialog: %w", err)
	}
	if dir == "" {
		return nil, ErrCanceled
	}
	paths, err := photosIn(dir)
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, refused(CodeNoPhotos, dir)
	}
	return c.a.capture(batch, paths, false)
}

// Paste captures an image from the clipboard, given as base64 with its
// MIME type: it is saved to a temp file first, since the outbox captures
// files.
func (c *Capture) Paste(batch, mimeType, data string) ([]CaptureResult, error) {
	ext, ok := map[string]string{"image/jpeg": ".jpg", "image/png": ".png", "image/webp": ".webp", "image/heic": ".heic"}[mimeType]
	if !ok {
		return nil, refused(CodeNotPicture, mimeType)
	}
	b, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return nil, refused(CodePasteUnreadable, "")
	}
	dir, err := os.MkdirTemp("", "spark-paste-")
	if err != nil {
		return nil, fmt.Errorf("save the pasted picture: %w", err)
	}
	defer os.RemoveAll(dir) // the outbox has its own copy once captured
	p := filepath.Join(dir, "Pasted picture"+ext)
	if err := os.WriteFile(p, b, 0o600); err != nil {
		return nil, fmt.Errorf("save the pasted picture: %w", err)
	}
	return c.a.capture(batch, []string{p}, true)
}

// capture runs the outbox's capture, reporting each file on "capture".
func (a *App) capture(batch string, paths []string, force bool) ([]CaptureResult, error) {
	ob, err := a.queue()
	if err != nil {
		return nil, err
	}
	names := make([]string, len(paths))
	for i, p := range paths {
		names[i] = filepath.Base(p)
	}
	a.emit(EventCapture, CaptureEvent{Batch: batch, Kind: CaptureKindStart, Total: len(paths), Names: names})
	done := 0
	res := ob.Capture(context.Background(), paths, outbox.CaptureOptions{
		Force: force,
		OnResult: func(r outbox.CaptureResult) {
			done++
			v := duplicateView(ob, captureView(r))
			a.emit(EventCapture, CaptureEvent{Batch: batch, Kind: CaptureKindResult, Total: len(paths), Done: done, Result: &v})
		},
	})
	out := make([]CaptureResult, len(res))
	for i, r := range res {
		out[i] = duplicateView(ob, captureView(r))
	}
	a.emit(EventCapture, CaptureEvent{Batch: batch, Kind: CaptureKindDone, Total: len(paths), Done: len(paths)})
	ob.Kick()
	return out, nil
}

// duplicateView gives a photo already in Spark the moment and the small
// copy of the photo it duplicates, so that its card shows that photo and
// opens its moment (issue 36).
func duplicateView(ob *outbox.Outbox, v CaptureResult) CaptureResult {
	if !v.Duplicate || v.EntryID == "" || v.MomentID != "" {
		return v
	}
	if id, err := ob.MomentOf(context.Background(), v.EntryID); err == nil {
		v.MomentID, v.Thumb = id, outboxCopyURL(v.EntryID)
	}
	return v
}

// photoExts are the file names a folder import picks up.
var photoExts = map[string]bool{".jpg": true, ".jpeg": true, ".png": true, ".webp": true, ".heic": true, ".heif": true}

// photosIn lists the photos under dir, sorted, skipping hidden files.
func photosIn(dir string) ([]string, error) {
	var paths []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // an unreadable subfolder does not stop the import
		}
		if strings.HasPrefix(d.Name(), ".") && p != dir {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.IsDir() && photoExts[strings.ToLower(filepath.Ext(p))] {
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read the folder %s: %w", dir, err)
	}
	sort.Strings(paths)
	return paths, nil
}

func (a *App) getShell() (Shell, error) {
	if sh := a.state().shell; sh != nil {
		return sh, nil
	}
	return nil, ErrNotReady
}

// notAddedCode says why a file was not added (a card's error), as one of
// the codes the window words.
func notAddedCode(err error) string {
	switch {
	case errors.Is(err, photo.ErrEmpty):
		return CodeEmptyFile
	case errors.Is(err, photo.ErrUnsupported):
		return CodeNotPhoto
	case errors.Is(err, photo.ErrCorrupt):
		return CodeDamagedPhoto
	case errors.Is(err, photo.ErrTooLarge):
		return CodePhotoTooLarge
	case errors.Is(err, outbox.ErrDiskFull):
		return CodeDiskFull
	case errors.Is(err, fs.ErrNotExist):
		return CodeNoFile
	case errors.Is(err, fs.ErrPermission):
		return CodeNotAllowed
	}
	return CodeNotAdded
}
