package app

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oklog/ulid/v2"
	"github.com/sparkfamily/spark/engine/api"
)

// TestUIError_CodesNotSentences: what a bound call refuses, and why a card
// of Add photos failed, reach the window as a code with the names its
// words need, never as a sentence made in Go (frontend/src/words.ts words
// them).
func TestUIError_CodesNotSentences(t *testing.T) {
	a, sh := startApp(t, t.TempDir(), nil)
	empty := t.TempDir()
	files := t.TempDir()
	blank := filepath.Join(files, "blank.jpg")
	os.WriteFile(blank, nil, 0o644)
	text := filepath.Join(files, "list.jpg")
	os.WriteFile(text, []byte("eggs, milk and bread for the weekend"), 0o644)
	gone := filepath.Join(files, "gone.jpg")

	sh.folder = empty
	_, noPhotos := a.Capture.ImportFolder("b", FileDialog{Title: "t"})
	_, textPaste := a.Capture.Paste("b", "text/plain", "aGk=")
	_, badPaste := a.Capture.Paste("b", "image/png", "not base64!")
	tests := []struct {
		name        string
		err         error
		code, named string
		detail      bool
	}{
		{"EmptyFolder", noPhotos, CodeNoPhotos, empty, false},
		{"PasteText", textPaste, CodeNotPicture, "text/plain", false},
		{"PasteUnreadable", badPaste, CodePasteUnreadable, "", false},
		{"RetryGone", a.Outbox.Retry(ulid.Make().String()), CodeNotWaiting, "", false},
		{"DiscardGone", a.Outbox.Discard(ulid.Make().String()), CodeNotWaiting, "", false},
		{"BadMomentID", func() error { _, err := a.Moments.AddNote("not-an-id", "x"); return err }(), api.CodeBadID, "", true},
		{"BadJobID", func() error { _, err := a.Moments.AskCareful(ulid.Make().String(), "bad id with spaces"); return err }(), api.CodeBadID, "", true},
	}
	res, err := a.Capture.Files("b", []string{blank, text, gone})
	if err != nil || len(res) != 3 {
		t.Fatalf("Capture.Files() = %+v, %v; want three cards", res, err)
	}
	cards := map[string]string{"blank.jpg": CodeEmptyFile, "list.jpg": CodeNotPhoto, "gone.jpg": CodeNoFile}
	for _, r := range res {
		if r.Error == nil {
			t.Errorf("card %s = %+v; want an error", r.Name, r)
			continue
		}
		tests = append(tests, struct {
			name        string
			err         error
			code, named string
			detail      bool
		}{"Card " + r.Name, r.Error, cards[r.Name], r.Name, true})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := toUIError(tt.err)
			if got == nil || got.Code != tt.code || got.Name != tt.named || (got.Detail != "") != tt.detail {
				t.Errorf("error = %+v; want %s naming %q (a detail: %v)", got, tt.code, tt.named, tt.detail)
			}
			b, _ := json.Marshal(got)
			if strings.Contains(string(b), `"message"`) {
				t.Errorf("error = %s; want no sentence made in Go", b)
			}
		})
	}
}

// TestUIError_ParkedWrite: a write the engine refuses within the wait
// answers with the engine's code and says the write is kept in the Outbox
// (Parked), the engine's own words only the detail.
func TestUIError_ParkedWrite(t *testing.T) {
	a, _ := startApp(t, t.TempDir(), nil)
	_, err := a.Moments.SetCaption(ulid.Make().String(), "a moment the engine never had", "")
	got := toUIError(err)
	if got == nil || got.Code == CodeFailed || !got.Parked || got.Detail == "" {
		t.Fatalf("SetCaption(unknown moment) = %+v; want the engine's code, parked, with its detail", got)
	}
	b, _ := json.Marshal(got)
	if strings.Contains(string(b), `"message"`) {
		t.Errorf("error = %s; want no sentence made in Go", b)
	}
}
