package app

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sparkfamily/spark/app/view"
	"github.com/sparkfamily/spark/engine"
	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/enginetest"
	"github.com/sparkfamily/spark/engine/pippa/pippatest"
	"github.com/sparkfamily/spark/internal/poll"
)

// testShell records events and answers dialogs with what the test set.
type testShell struct {
	mu     sync.Mutex
	events []string
	files  []string
	folder string
	// dialogs is what each dialog asked for said.
	dialogs []FileDialog
}

func (s *testShell) Emit(event string, _ any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.events = append(s.events, event)
}
func (s *testShell) OpenFiles(d FileDialog) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dialogs = append(s.dialogs, d)
	return s.files, nil
}

func (s *testShell) OpenFolder(d FileDialog) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dialogs = append(s.dialogs, d)
	return s.folder, nil
}

func (s *testShell) Reveal(string) {}

func (s *testShell) asked() []FileDialog {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]FileDialog(nil), s.dialogs...)
}

func (s *testShell) count(event string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, e := range s.events {
		if e == event {
			n++
		}
	}
	return n
}

// startApp starts an App on dir with the given Pippa (none when nil) and
// shuts it down at the end of the test.
func startApp(tb testing.TB, dir string, p *pippatest.Server) (*App, *testShell) {
	tb.Helper()
	for _, v := range []string{"SPARK_BRAIN_URL", "SPARK_BRAIN_MODEL", "SPARK_BRAIN_KEY"} {
		if os.Getenv(v) != "" {
			tb.Setenv(v, "")
		}
	}
	a := New(Options{DataDir: dir})
	sh := &testShell{}
	a.Startup(context.Background(), sh)
	tb.Cleanup(a.Shutdown)
	if p != nil {
		if _, err := a.Settings.SetPippa(Pippa{URL: p.URL(), Model: "test-model"}); err != nil {
			tb.Fatalf("SetPippa: %v", err)
		}
	}
	return a, sh
}

// writePhoto writes a small JPEG whose pixels depend on seed.
func writePhoto(tb testing.TB, dir string, seed int) string {
	tb.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 64, 48))
	for y := range 48 {
		for x := range 64 {
			img.Set(x, y, color.RGBA{uint8(seed * 40), uint8(x * 4), uint8(y * 5), 255})
		}
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, nil); err != nil {
		tb.Fatal(err)
	}
	p := filepath.Join(dir, "photo-"+string(rune('a'+seed))+".jpg")
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		tb.Fatal(err)
	}
	return p
}

func waitFor(tb testing.TB, what string, ok func() bool) {
	tb.Helper()
	poll.Until(tb, 20*time.Second, what, ok)
}

func delivered(a *App) func() bool {
	return func() bool {
		st, err := a.Settings.Status()
		return err == nil && st.Waiting == 0 && st.Parked == 0
	}
}

func TestApp_LocalEngine(t *testing.T) {
	dir := t.TempDir()
	p := pippatest.New(t)
	a, sh := startApp(t, dir, p)

	st, err := a.Settings.Status()
	if err != nil || !st.Ready || !st.Reachable || st.Engine != EngineLocal {
		t.Fatalf("Status() = %+v, %v; want ready, reachable, local", st, err)
	}
	fi, err := os.Stat(filepath.Join(dir, settingsFile))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("settings file: %v, %v; want mode 0600", fi, err)
	}
	prefs, err := loadPrefs(dir)
	if err != nil || prefs.LocalToken == "" {
		t.Fatalf("loadPrefs() = %+v, %v; want a minted token", prefs, err)
	}

	res, err := a.Capture.Files("b1", []string{writePhoto(t, t.TempDir(), 1)})
	if err != nil || len(res) != 1 || res[0].Error != nil || res[0].MomentID == "" {
		t.Fatalf("Capture.Files() = %+v, %v", res, err)
	}
	if got := sh.count("capture"); got != 3 {
		t.Errorf("capture events = %d, want start, result and done", got)
	}
	waitFor(t, "delivery", delivered(a))
	var m view.Moment
	waitFor(t, "Pippa's reading", func() bool {
		m, err = a.Moments.Get(res[0].MomentID)
		return err == nil && len(m.Readings) == 1 && m.Readings[0].Status == api.TurnFinished
	})
	if m.Pending || m.Copy == nil || m.Original == nil {
		t.Fatalf("moment = %+v; want delivered with both media", m)
	}

	for _, u := range []string{m.Thumb, res[0].Thumb} {
		// The card's /outbox-copy/ URL keeps working after delivery, when
		// the outbox has let go of its files.
		rec := httptest.NewRecorder()
		a.MediaHandler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, u, nil))
		if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != "image/jpeg" || rec.Body.Len() == 0 {
			t.Errorf("GET %s = %d %q (%d bytes); want the JPEG small copy", u, rec.Code, rec.Header().Get("Content-Type"), rec.Body.Len())
		}
	}

	// Once delivered, the original has left the outbox: saving it says
	// where to find it instead.
	sh.folder = t.TempDir()
	var saveErr *UIError
	waitFor(t, "the delivered files to leave the outbox", func() bool {
		_, err := a.Outbox.SaveOriginal(res[0].EntryID, FileDialog{Title: "t"})
		saveErr = toUIError(err)
		return saveErr != nil && saveErr.Code == CodeOriginalDelivered
	})
	if saveErr.Name == "" {
		t.Errorf("SaveOriginal(delivered) = %+v; want original_delivered naming the photo", saveErr)
	}

	// Restarting on the same folder keeps the token and the moments.
	a.Shutdown()
	a2, _ := startApp(t, dir, nil)
	prefs2, _ := loadPrefs(dir)
	if prefs2.LocalToken != prefs.LocalToken {
		t.Errorf("the token changed across a restart")
	}
	page, err := a2.Moments.Page("", 10)
	if err != nil || len(page.Moments) != 1 || page.Moments[0].ID != m.ID {
		t.Fatalf("after restart Page() = %+v, %v; want the one moment", page, err)
	}
}

func TestApp_PendingShowsBeforeDelivery(t *testing.T) {
	remote := enginetest.Start(t)
	remote.Close() // a family engine that is down
	a, _ := startApp(t, t.TempDir(), nil)
	if _, err := a.Settings.UseRemote(remote.URL, remote.Token); err != nil {
		t.Fatalf("UseRemote: %v", err)
	}
	res, err := a.Capture.Files("b", []string{writePhoto(t, t.TempDir(), 2)})
	if err != nil || res[0].Error != nil {
		t.Fatalf("Capture.Files() = %+v, %v", res, err)
	}
	page, err := a.Moments.Page("", 10)
	if err != nil || len(page.Moments) != 1 || !page.Moments[0].Pending || page.Moments[0].EntryID != res[0].EntryID {
		t.Fatalf("Page() offline = %+v, %v; want the capture, pending", page, err)
	}
	st, _ := a.Settings.Status()
	if st.Reachable || st.Waiting != 1 {
		t.Errorf("Status() = %+v; want offline with one waiting", st)
	}
	rec := httptest.NewRecorder()
	a.MediaHandler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, page.Moments[0].Thumb, nil))
	if rec.Code != http.StatusOK || rec.Body.Len() == 0 {
		t.Errorf("GET %s = %d; want the outbox's small copy", page.Moments[0].Thumb, rec.Code)
	}
}

func TestApp_SwitchEngines(t *testing.T) {
	dir := t.TempDir()
	remote := enginetest.Start(t)
	a, _ := startApp(t, dir, nil)

	if _, err := a.Settings.UseRemote(remote.URL, remote.Token); err != nil {
		t.Fatalf("UseRemote: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "engine-address")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the local engine still runs after switching away (engine-address: %v)", err)
	}
	if _, err := a.Capture.Files("b", []string{writePhoto(t, t.TempDir(), 3)}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "delivery to the family engine", delivered(a))
	if got := remote.OpCount(t, api.OpMomentCreate); got != 1 {
		t.Errorf("family engine moment.create ops = %d, want 1", got)
	}
	prefs, _ := loadPrefs(dir)
	if prefs.Engine != EngineRemote || prefs.RemoteURL != remote.URL {
		t.Errorf("prefs = %+v; want the family engine saved", prefs)
	}

	if _, err := a.Settings.UseLocal(); err != nil {
		t.Fatalf("UseLocal: %v", err)
	}
	st, _ := a.Settings.Status()
	if !st.Reachable || st.Engine != EngineLocal {
		t.Errorf("Status() after UseLocal = %+v", st)
	}
	if _, err := os.Stat(filepath.Join(dir, "engine-address")); err != nil {
		t.Errorf("the local engine did not start again: %v", err)
	}
}

func TestApp_RefusedToken(t *testing.T) {
	remote := enginetest.Start(t)
	a, _ := startApp(t, t.TempDir(), nil)
	if _, err := a.Settings.UseRemote(remote.URL, "not-the-token"); err != nil {
		t.Fatalf("UseRemote: %v", err)
	}
	st, _ := a.Settings.Status()
	if !st.Refused || st.Reachable {
		t.Errorf("Status() = %+v; want the token refused", st)
	}
	_, err := a.Phrases.List()
	if got := toUIError(err); got == nil || got.Code != CodeUnauthorized || got.Detail == "" {
		t.Errorf("Phrases.List() error = %+v; want unauthorized, the engine's words behind it", got)
	}
	if _, err := a.Capture.Files("b", []string{writePhoto(t, t.TempDir(), 8)}); err != nil {
		t.Fatal(err)
	}
	var es []Entry
	waitFor(t, "the entry to wait on the refused token", func() bool {
		es, err = a.Outbox.Entries()
		return err == nil && len(es) == 1 && es[0].Refused
	})
	if es[0].State != "pending" || es[0].Wait != WaitRefused {
		t.Errorf("entry = %+v; want waiting on the refused token", es[0])
	}
	r, err := a.Settings.Test(remote.URL, "not-the-token")
	if err != nil || r.OK {
		t.Errorf("Test() = %+v, %v; want not OK", r, err)
	}
	r, err = a.Settings.Test(remote.URL, remote.Token)
	if err != nil || !r.OK {
		t.Errorf("Test() with the right token = %+v, %v; want OK", r, err)
	}
}

func TestApp_CorruptOutboxIsKept(t *testing.T) {
	dir := t.TempDir()
	ob := filepath.Join(dir, "outbox")
	if err := os.MkdirAll(ob, 0o700); err != nil {
		t.Fatal(err)
	}
	junk := bytes.Repeat([]byte("this is not a database "), 400)
	if err := os.WriteFile(filepath.Join(ob, "outbox.db"), junk, 0o600); err != nil {
		t.Fatal(err)
	}
	a, _ := startApp(t, dir, nil)
	st, _ := a.Settings.Status()
	// The window words it (words.ts startProblem): a code and the folder.
	if st.Ready || st.Starting || st.Problem == nil || st.Problem.Code != CodeOutboxUnopened || st.Problem.Name != ob || st.Problem.Detail == "" {
		t.Errorf("Status() = %+v; want not ready with a message about the outbox", st)
	}
	_, err := a.Capture.Files("b", nil)
	if got := toUIError(err); got == nil || got.Code != CodeNotReady {
		t.Errorf("Capture.Files() error = %+v; want not_ready", got)
	}
	a.Shutdown()
	b, err := os.ReadFile(filepath.Join(ob, "outbox.db"))
	if err != nil || !bytes.Equal(b, junk) {
		t.Errorf("the corrupt outbox database was changed (%v)", err)
	}
}

// TestMoments_CaptionTooLong: a note or caption over the engine's cap is
// refused by the app itself, with the engine's code and words, even with
// no engine to ask.
func TestMoments_CaptionTooLong(t *testing.T) {
	a, _ := startApp(t, t.TempDir(), nil)
	long := strings.Repeat("a", api.MaxCaptionBytes+1)
	// A family engine that does not answer: only the app can refuse.
	if _, err := a.Settings.UseRemote("http://127.0.0.1:1", "tok"); err != nil {
		t.Fatal(err)
	}
	for name, call := range map[string]func() error{
		"AddNote": func() error { _, err := a.Moments.AddNote("01ARZ3NDEKTSV4RRFFQ69G5FAV", long); return err },
		"SetCaption": func() error {
			_, err := a.Moments.SetCaption("01ARZ3NDEKTSV4RRFFQ69G5FAV", long, captionShown(a, "01ARZ3NDEKTSV4RRFFQ69G5FAV"))
			return err
		},
	} {
		if got := toUIError(call()); got == nil || got.Code != api.CodeCaptionTooLong || !strings.Contains(got.Detail, "64 KiB") {
			t.Errorf("%s: error = %+v; want caption_too_long saying the cap", name, got)
		}
	}
}

// TestApp_LogHidesSecrets: a family engine's address with a password in it
// is logged without the password.
func TestApp_LogHidesSecrets(t *testing.T) {
	dir := t.TempDir()
	a, _ := startApp(t, dir, nil)
	if _, err := a.Settings.UseRemote("http://dad:hunter2secret@127.0.0.1:1", "tok"); err != nil {
		t.Fatal(err)
	}
	a.Shutdown()
	b, err := os.ReadFile(filepath.Join(dir, "logs", "spark.log"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte("using the family engine")) || bytes.Contains(b, []byte("hunter2secret")) {
		t.Errorf("the app's log should name the family engine without its password:\n%s", b)
	}
}

func TestSettings_BadInput(t *testing.T) {
	a, _ := startApp(t, t.TempDir(), nil)
	tests := []struct {
		name        string
		call        func() error
		code, named string
	}{
		{"RemoteNotAURL", func() error { _, err := a.Settings.UseRemote("family engine", "tok"); return err }, CodeNotEngineAddress, "family engine"},
		{"RemoteNoToken", func() error { _, err := a.Settings.UseRemote("http://127.0.0.1:1", " "); return err }, CodeNoToken, ""},
		{"PippaNoModel", func() error { _, err := a.Settings.SetPippa(Pippa{URL: OllamaURL}); return err }, CodeNoPippaModel, ""},
		{"PippaNotAURL", func() error { _, err := a.Settings.SetPippa(Pippa{URL: "ollama", Model: "llava"}); return err }, CodeNotPippaAddress, "ollama"},
		{"EmptyNote", func() error { _, err := a.Moments.AddNote("01ARZ3NDEKTSV4RRFFQ69G5FAV", "  "); return err }, CodeEmptyNote, ""},
		{"PasteText", func() error { _, err := a.Capture.Paste("b", "text/plain", "aGk="); return err }, CodeNotPicture, "text/plain"},
		{"EmptyPhrase", func() error { _, err := a.Phrases.Keep(" ", ""); return err }, CodeNoWords, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := toUIError(tt.call())
			if got == nil || got.Code != tt.code || got.Name != tt.named {
				t.Errorf("error = %+v; want %s naming %q", got, tt.code, tt.named)
			}
		})
	}
}

func TestCapture_ImportFolderAndPaste(t *testing.T) {
	a, sh := startApp(t, t.TempDir(), nil)
	src := t.TempDir()
	writePhoto(t, src, 4)
	sub := filepath.Join(src, "holiday")
	os.Mkdir(sub, 0o755)
	writePhoto(t, sub, 5)
	os.WriteFile(filepath.Join(src, "notes.txt"), []byte("not a photo"), 0o644)
	os.WriteFile(filepath.Join(src, ".hidden.jpg"), []byte("skipped"), 0o644)
	sh.folder = src
	res, err := a.Capture.ImportFolder("b", FileDialog{Title: "t"})
	if err != nil || len(res) != 2 {
		t.Fatalf("ImportFolder() = %+v, %v; want the two photos", res, err)
	}
	sh.folder = ""
	if _, err := a.Capture.ImportFolder("b", FileDialog{Title: "t"}); !errors.Is(err, ErrCanceled) {
		t.Errorf("ImportFolder() cancelled = %v, want ErrCanceled", err)
	}
	b, _ := os.ReadFile(writePhoto(t, t.TempDir(), 6))
	res, err = a.Capture.Paste("b", "image/jpeg", base64.StdEncoding.EncodeToString(b))
	if err != nil || len(res) != 1 || res[0].Error != nil || res[0].Name != "Pasted picture.jpg" {
		t.Fatalf("Paste() = %+v, %v", res, err)
	}
}

func TestFormatError(t *testing.T) {
	tests := []struct {
		name string
		err  error
		code string
	}{
		{"Contract", &api.Error{Status: 409, Code: api.CodeMediaConflict, Message: "different bytes"}, api.CodeMediaConflict},
		{"Unauthorized", &api.Error{Status: 401, Code: api.CodeUnauthorized, Message: "unknown token"}, CodeUnauthorized},
		{"BadHost", &api.Error{Status: 403, Code: api.CodeBadHost, Message: "not loopback"}, CodeUnauthorized},
		{"Forbidden", &api.Error{Status: 403, Code: api.CodeForbidden, Message: "moment X was created by another device"}, api.CodeForbidden},
		{"NotReady", ErrNotReady, CodeNotReady},
		{"Canceled", ErrCanceled, CodeCanceled},
		{"Network", fmt.Errorf("list phrases: %w", &url.Error{Op: "Get", URL: "http://127.0.0.1:1", Err: errors.New("connection refused")}), CodeOffline},
		{"Timeout", context.DeadlineExceeded, CodeOffline},
		{"Other", errors.New("boom"), CodeFailed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := FormatError(tt.err).(*UIError)
			if !ok || got.Code != tt.code {
				t.Errorf("FormatError(%v) = %+v; want code %q and no sentence", tt.err, got, tt.code)
			}
		})
	}
}

func TestPrefs_RoundTrip(t *testing.T) {
	dir := t.TempDir()
	got, err := loadPrefs(dir)
	if err != nil || got.Engine != EngineLocal {
		t.Fatalf("loadPrefs(empty) = %+v, %v; want the local engine", got, err)
	}
	want := prefs{Engine: EngineRemote, RemoteURL: "http://10.0.0.2:8787", RemoteToken: "t", LocalToken: "l", Pippa: Pippa{URL: OllamaURL, Model: "llava"}}
	if err := savePrefs(dir, want); err != nil {
		t.Fatal(err)
	}
	got, err = loadPrefs(dir)
	if err != nil || got != want {
		t.Errorf("loadPrefs() = %+v, %v; want %+v", got, err, want)
	}
	os.WriteFile(filepath.Join(dir, settingsFile), []byte("{"), 0o600)
	if _, err := loadPrefs(dir); err == nil || !strings.Contains(err.Error(), "move it aside") {
		t.Errorf("loadPrefs(damaged) = %v; want advice", err)
	}
}

func TestOutbox_ParkedEntry(t *testing.T) {
	remote := enginetest.Start(t, enginetest.WithMaxMediaSize(200))
	a, sh := startApp(t, t.TempDir(), nil)
	if _, err := a.Settings.UseRemote(remote.URL, remote.Token); err != nil {
		t.Fatal(err)
	}
	src := writePhoto(t, t.TempDir(), 7)
	res, err := a.Capture.Files("b", []string{src})
	if err != nil || res[0].Error != nil {
		t.Fatalf("Capture.Files() = %+v, %v", res, err)
	}
	var es []Entry
	waitFor(t, "the entry to park", func() bool {
		es, err = a.Outbox.Entries()
		return err == nil && len(es) == 1 && es[0].State == "parked"
	})
	if es[0].Code != api.CodeMediaTooLarge || es[0].Detail == "" || len(es[0].Steps) != 4 || !es[0].Steps[0].Done || es[0].Steps[1].Done {
		t.Errorf("parked entry = %+v; want media_too_large after the create step", es[0])
	}
	st, _ := a.Settings.Status()
	if st.Parked != 1 || st.Waiting != 0 {
		t.Errorf("Status() = %+v; want one parked", st)
	}

	sh.folder = t.TempDir()
	saved, err := a.Outbox.SaveOriginal(es[0].ID, FileDialog{Title: "t"})
	if err != nil {
		t.Fatalf("SaveOriginal: %v", err)
	}
	want, _ := os.ReadFile(src)
	got, err := os.ReadFile(saved)
	if err != nil || !bytes.Equal(got, want) || filepath.Dir(saved) != sh.folder {
		t.Errorf("saved %s (%v): want the original's bytes in the chosen folder", saved, err)
	}
	if again, err := a.Outbox.SaveOriginal(es[0].ID, FileDialog{Title: "t"}); err != nil || again == saved {
		t.Errorf("SaveOriginal again = %q, %v; want a second, differently named file", again, err)
	}

	if n, err := a.Outbox.RetryAll(); err != nil || n != 1 {
		t.Errorf("RetryAll() = %d, %v; want 1", n, err)
	}
	waitFor(t, "the entry to park again", func() bool {
		es, err = a.Outbox.Entries()
		return err == nil && len(es) == 1 && es[0].State == "parked"
	})
	if err := a.Outbox.Discard(es[0].ID); err != nil {
		t.Fatalf("Discard: %v", err)
	}
	if es, _ := a.Outbox.Entries(); len(es) != 0 {
		t.Errorf("Entries() after Discard = %+v; want none", es)
	}
}

func TestMoments_EmptyPageIsAList(t *testing.T) {
	a, _ := startApp(t, t.TempDir(), nil)
	page, err := a.Moments.Page("", 10)
	if err != nil || page.Moments == nil || len(page.Moments) != 0 || page.Next != "" {
		t.Errorf("Page() on an empty engine = %#v, %v; want an empty, non-nil list", page, err)
	}
}

// TestApp_EngineFolderInUse: the app's own engine refuses to start on a
// folder another engine already holds (a spark-engine serve on the same
// folder, here an engine opened beside it), and the app says so in words
// that name the folder and what to do; the other engine is not disturbed.
func TestApp_EngineFolderInUse(t *testing.T) {
	dir := t.TempDir()
	engineDir := filepath.Join(dir, "engine")
	other, err := engine.Open(context.Background(), engine.Config{Dir: engineDir, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	before := other.Health(context.Background())
	a, _ := startApp(t, dir, nil)
	st, err := a.Settings.Status()
	if err != nil {
		t.Fatal(err)
	}
	if st.Ready || st.Problem == nil || st.Problem.Code != CodeEngineInUse || st.Problem.Name != engineDir {
		t.Fatalf("Status() = ready %v, problem %+v; want not ready, and a problem naming %s as in use", st.Ready, st.Problem, engineDir)
	}
	if strings.Contains(st.Problem.Name+st.Problem.Detail, "engine.lock") {
		t.Errorf("the problem %+v shows the lock file's name, which means nothing to Dad", st.Problem)
	}
	if after := other.Health(context.Background()); !after.OK || after.Seq != before.Seq {
		t.Errorf("the other engine after the app tried: %+v, before %+v", after, before)
	}
}
