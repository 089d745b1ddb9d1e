package outbox

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sparkfamily/spark/engine/enginetest"
)

// An entry whose own files in the outbox cannot be read is parked at once
// with a reason about this computer, in plain words, instead of waiting as
// if the engine were out of reach; once the file is back, Retry delivers
// it. (Tests run as root, where chmod 000 changes nothing: the file is
// removed, replaced by a folder, cut short, or opened through an opener
// that answers "permission denied".)
func TestDrain_ParksUnreadableFiles(t *testing.T) {
	eng := enginetest.Start(t)
	for i, tt := range []struct {
		name string
		step string
		code string
		// spoil makes the file of step unreadable and returns what puts
		// it back.
		spoil func(t *testing.T, path string) (restore func())
	}{
		{"CopyGone", StepCopy, CodeMissingFile, func(t *testing.T, path string) func() {
			return moveAside(t, path)
		}},
		{"OriginalGone", StepOriginal, CodeMissingFile, func(t *testing.T, path string) func() {
			return moveAside(t, path)
		}},
		{"FolderGone", StepCopy, CodeMissingFile, func(t *testing.T, path string) func() {
			return moveAside(t, filepath.Dir(path))
		}},
		{"FolderInPlace", StepOriginal, CodeUnreadableFile, func(t *testing.T, path string) func() {
			restore := moveAside(t, path)
			if err := os.Mkdir(path, 0o700); err != nil {
				t.Fatal(err)
			}
			return func() {
				if err := os.Remove(path); err != nil {
					t.Fatal(err)
				}
				restore()
			}
		}},
		{"CutShort", StepOriginal, CodeChangedFile, func(t *testing.T, path string) func() {
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, b[:len(b)/2], 0o600); err != nil {
				t.Fatal(err)
			}
			return func() {
				if err := os.WriteFile(path, b, 0o600); err != nil {
					t.Fatal(err)
				}
			}
		}},
		{"PermissionDenied", StepCopy, CodeUnreadableFile, func(t *testing.T, path string) func() {
			denyOpen(t, path)
			return func() { openOutboxFile = os.Open }
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			o := openTest(t, "", testOptions())
			rec := record(t, o)
			src := t.TempDir()
			bad := mustCapture(t, o, writePhoto(t, src, "letter.jpg", uint64(700+10*i)))[0].Entry
			good := mustCapture(t, o, writePhoto(t, src, "good.jpg", uint64(701+10*i)))[0].Entry
			name := copyName
			if tt.step == StepOriginal {
				name = originalName
			}
			restore := tt.spoil(t, filepath.Join(o.entryDir(bad.ID), name))

			o.SetTarget(Target{URL: eng.URL, Token: eng.Token})
			startDrain(t, o)
			if c := settle(t, o, 10*time.Second); c != (Counts{Parked: 1, Done: 1}) {
				t.Fatalf("counts = %+v, want the spoiled entry parked and the other done", c)
			}
			got, err := o.Entry(context.Background(), bad.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got.State != Parked || got.LastCode != tt.code {
				t.Fatalf("entry = state %s code %q (%s), want parked with %s", got.State, got.LastCode, got.LastError, tt.code)
			}
			// The reason is the code and the facts (the photo, its file's
			// path); the words for Dad are made from the code, in the
			// window (words.ts) and the spark command.
			for _, want := range []string{"letter.jpg", filepath.Join(o.entryDir(bad.ID), name)} {
				if !strings.Contains(got.LastError, want) {
					t.Errorf("reason %q does not say %q", got.LastError, want)
				}
			}
			// The event follows the state change: wait for it.
			waitFor(t, 5*time.Second, "the parked event", func() bool { return len(rec.of(bad.ID, EventParked)) > 0 })
			if ev := rec.of(bad.ID, EventParked); len(ev) != 1 || ev[0].Step != tt.step || ev[0].Code != tt.code {
				t.Errorf("parked events = %+v, want one at step %s", ev, tt.step)
			}
			if ev := rec.of(bad.ID, EventWaiting); len(ev) != 0 {
				t.Errorf("waiting events %+v: a local file's trouble is not the network's", ev)
			}

			restore()
			if err := o.Retry(context.Background(), bad.ID); err != nil {
				t.Fatal(err)
			}
			if c := settle(t, o, 10*time.Second); c != (Counts{Done: 2}) {
				t.Fatalf("after the file came back and Retry, counts = %+v", c)
			}
			checkDelivered(t, eng, []Entry{*bad, *good})
		})
	}
}

// moveAside renames path out of the way and returns what renames it back.
func moveAside(t *testing.T, path string) func() {
	t.Helper()
	aside := filepath.Join(t.TempDir(), "aside")
	if err := os.Rename(path, aside); err != nil {
		t.Fatal(err)
	}
	return func() {
		if err := os.Rename(aside, path); err != nil {
			t.Fatal(err)
		}
	}
}

// denyOpen makes the drain's opener answer "permission denied" for path,
// as the operating system does for a file its user may not read.
func denyOpen(t *testing.T, path string) {
	t.Helper()
	t.Cleanup(func() { openOutboxFile = os.Open })
	openOutboxFile = func(name string) (*os.File, error) {
		if name == path {
			return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrPermission}
		}
		return os.Open(name)
	}
}

// localReader tells a file cut short or failing while it is sent from one
// read whole.
func TestLocalReader(t *testing.T) {
	for _, tt := range []struct {
		name    string
		r       io.ReaderAt
		want    int64
		wantErr string
	}{
		{"Whole", strings.NewReader("abcde"), 5, ""},
		{"CutShort", strings.NewReader("abc"), 5, "ended after 3 bytes of 5"},
		{"ReadError", failingAt{strings.NewReader("abcde"), 2, errors.New("input/output error")}, 5, "input/output error"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			l := &localReader{r: tt.r, want: tt.want}
			io.Copy(io.Discard, io.NewSectionReader(l, 0, tt.want))
			got := ""
			if err := l.failed(); err != nil {
				got = err.Error()
			}
			if tt.wantErr == "" && got != "" || !strings.Contains(got, tt.wantErr) {
				t.Errorf("err = %q, want %q", got, tt.wantErr)
			}
		})
	}
}

// failingAt reads as r does up to byte at, then fails with err.
type failingAt struct {
	r   io.ReaderAt
	at  int64
	err error
}

func (f failingAt) ReadAt(b []byte, off int64) (int, error) {
	if off >= f.at {
		return 0, f.err
	}
	n, err := f.r.ReadAt(b[:min(int64(len(b)), f.at-off)], off)
	if err == nil {
		err = f.err
	}
	return n, err
}
