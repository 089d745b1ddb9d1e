package outbox

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"image/jpeg"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/outbox/photo"
	"github.com/sparkfamily/spark/outbox/photo/phototest"
)

func TestOutbox_Capture(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		o := openTest(t, "", testOptions())
		src := t.TempDir()
		p := writePhoto(t, src, "a.jpg", 1)
		want, _ := os.ReadFile(p)
		var added []Event
		ch, stop := o.Subscribe()
		defer stop()
		var called []string
		res := o.Capture(context.Background(), []string{p}, CaptureOptions{OnResult: func(r CaptureResult) { called = append(called, r.Path) }})
		if len(res) != 1 || res[0].Err != nil || res[0].Entry == nil {
			t.Fatalf("Capture = %+v", res)
		}
		if diff := cmp.Diff([]string{p}, called); diff != "" {
			t.Errorf("OnResult calls (-want +got):\n%s", diff)
		}
		e := res[0].Entry
		// The source may vanish: the outbox holds its own copy.
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(o.Dir(), "files", e.ID, "original"))
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("original in outbox differs from the source (err %v)", err)
		}
		sum := sha256.Sum256(want)
		if e.SHA256 != hex.EncodeToString(sum[:]) || e.Size != int64(len(want)) {
			t.Errorf("entry sha256/size = %s/%d, want %x/%d", e.SHA256, e.Size, sum, len(want))
		}
		for _, id := range []string{e.ID, e.MomentID, e.CopyID, e.OriginalID, e.TurnRequestID} {
			if _, err := api.ParseULID(id); err != nil {
				t.Errorf("id %q: %v", id, err)
			}
		}
		cp, err := o.SmallCopyPath(e.ID)
		if err != nil {
			t.Fatal(err)
		}
		cb, _ := os.ReadFile(cp)
		cfg, err := jpeg.DecodeConfig(bytes.NewReader(cb))
		if err != nil || cfg.Width != 64 || cfg.Height != 48 || e.CopyWidth != 64 || e.CopyHeight != 48 {
			t.Errorf("small copy %dx%d (entry %dx%d), err %v; want 64x48", cfg.Width, cfg.Height, e.CopyWidth, e.CopyHeight, err)
		}
		csum := sha256.Sum256(cb)
		if e.CopySHA256 != hex.EncodeToString(csum[:]) || e.CopySize != int64(len(cb)) {
			t.Errorf("copy sha256/size mismatch")
		}
		stored, err := o.Entry(context.Background(), e.ID)
		if err != nil {
			t.Fatal(err)
		}
		if stored.State != Pending || stored.StepsDone != 0 || stored.Format != "jpeg" || stored.ContentType != "image/jpeg" || stored.TakenAt == nil {
			t.Errorf("stored entry = %+v", stored)
		}
		if diff := cmp.Diff(e, stored); diff != "" {
			t.Errorf("returned entry differs from stored (-returned +stored):\n%s", diff)
		}
		added = append(added, <-ch)
		if added[0].Kind != EventAdded || added[0].EntryID != e.ID {
			t.Errorf("event = %+v, want added %s", added[0], e.ID)
		}
		if got := listDir(t, filepath.Join(o.Dir(), "staging")); len(got) != 0 {
			t.Errorf("staging not empty: %v", got)
		}
	})

	t.Run("BadInputs", func(t *testing.T) {
		o := openTest(t, "", testOptions())
		src := t.TempDir()
		good1 := writePhoto(t, src, "good1.jpg", 10)
		good2 := writePhoto(t, src, "sub/good2.jpg", 11)
		empty := filepath.Join(src, "empty.jpg")
		os.WriteFile(empty, nil, 0o644)
		text := filepath.Join(src, "notes.txt")
		os.WriteFile(text, []byte("this is not a photo\n"), 0o644)
		full := phototest.JPEG(64, 48, 12)
		corrupt := filepath.Join(src, "cut.jpg")
		os.WriteFile(corrupt, full[:len(full)/2], 0o644)
		bomb := filepath.Join(src, "bomb.jpg")
		os.WriteFile(bomb, jpegWithSize(t, 20000, 20000), 0o644)
		os.WriteFile(filepath.Join(src, ".DS_Store"), []byte("junk"), 0o644)
		missing := filepath.Join(src, "gone.jpg")

		res := o.Capture(context.Background(), []string{src, missing}, CaptureOptions{})
		byPath := map[string]CaptureResult{}
		for _, r := range res {
			byPath[r.Path] = r
		}
		if len(res) != 7 {
			t.Fatalf("got %d results, want 7 (dotfiles skipped): %+v", len(res), res)
		}
		tests := []struct {
			path string
			is   error
			says string
		}{
			{empty, photo.ErrEmpty, "empty"},
			{text, photo.ErrUnsupported, "unsupported"},
			{corrupt, photo.ErrCorrupt, "cut.jpg"},
			{bomb, photo.ErrTooLarge, "bomb.jpg"},
			{missing, fs.ErrNotExist, "no such file"},
		}
		for _, tt := range tests {
			t.Run(filepath.Base(tt.path), func(t *testing.T) {
				r := byPath[tt.path]
				if r.Entry != nil || !errors.Is(r.Err, tt.is) {
					t.Fatalf("result = %+v, want error %v", r, tt.is)
				}
				msg := r.Err.Error()
				if !strings.Contains(msg, tt.path) && !strings.Contains(msg, filepath.Base(tt.path)) || !strings.Contains(strings.ToLower(msg), tt.says) {
					t.Errorf("message %q should name the file and say %q", msg, tt.says)
				}
				if strings.Contains(msg, o.Dir()) {
					t.Errorf("message %q names the outbox's own files", msg)
				}
			})
		}
		for _, p := range []string{good1, good2} {
			if r := byPath[p]; r.Err != nil || r.Entry == nil {
				t.Errorf("%s: %+v", p, r)
			}
		}
		ents, err := o.Entries(context.Background())
		if err != nil || len(ents) != 2 {
			t.Fatalf("Entries = %d, %v; want the 2 good ones", len(ents), err)
		}
		if got := listDir(t, filepath.Join(o.Dir(), "files")); len(got) != 2 {
			t.Errorf("files/ holds %v, want 2 entries", got)
		}
		if got := listDir(t, filepath.Join(o.Dir(), "staging")); len(got) != 0 {
			t.Errorf("staging not empty: %v", got)
		}
	})

	t.Run("ThousandsOfFiles", func(t *testing.T) {
		o := openTest(t, "", testOptions())
		src := t.TempDir()
		const n = 2000
		for i := range n {
			os.WriteFile(filepath.Join(src, fmt.Sprintf("scan%04d.txt", i)), []byte("page"), 0o644)
		}
		good := writePhoto(t, src, "zz-good.jpg", 13)
		var calls atomic.Int32
		res := o.Capture(context.Background(), []string{src}, CaptureOptions{
			OnFiles:  func(got int) { calls.Add(1) },
			OnResult: func(CaptureResult) { calls.Add(1) },
		})
		if len(res) != n+1 || calls.Load() != n+2 {
			t.Fatalf("%d results, %d callbacks; want %d and %d", len(res), calls.Load(), n+1, n+2)
		}
		for _, r := range res {
			if r.Path == good {
				if r.Entry == nil {
					t.Errorf("the good photo: %v", r.Err)
				}
			} else if !errors.Is(r.Err, photo.ErrUnsupported) {
				t.Fatalf("%s: %v, want unsupported", r.Path, r.Err)
			}
		}
	})

	t.Run("Unreadable", func(t *testing.T) {
		if os.Geteuid() == 0 {
			t.Skip("running as root, which may read any file")
		}
		if runtime.GOOS == "windows" {
			t.Skip("Windows: chmod only sets the read-only attribute, which does not stop reading")
		}
		o := openTest(t, "", testOptions())
		p := writePhoto(t, t.TempDir(), "locked.jpg", 20)
		os.Chmod(p, 0)
		r := o.Capture(context.Background(), []string{p}, CaptureOptions{})[0]
		if !errors.Is(r.Err, fs.ErrPermission) || !strings.Contains(r.Err.Error(), "permission denied") {
			t.Errorf("err = %v, want permission denied", r.Err)
		}
	})

	t.Run("Duplicate", func(t *testing.T) {
		o := openTest(t, "", testOptions())
		src := t.TempDir()
		p := writePhoto(t, src, "a.jpg", 30)
		same := filepath.Join(src, "copy of a.jpg")
		b, _ := os.ReadFile(p)
		os.WriteFile(same, b, 0o644)
		first := mustCapture(t, o, p)[0].Entry
		res := o.Capture(context.Background(), []string{p, same}, CaptureOptions{})
		for _, r := range res {
			if r.Err != nil || !r.Duplicate || r.DuplicateOf != first.ID || r.Entry != nil {
				t.Errorf("%s: %+v, want duplicate of %s", r.Path, r, first.ID)
			}
		}
		forced := o.Capture(context.Background(), []string{same}, CaptureOptions{Force: true})[0]
		if forced.Err != nil || forced.Duplicate || forced.Entry == nil || forced.Entry.ID == first.ID {
			t.Errorf("forced: %+v", forced)
		}
		if ents, _ := o.Entries(context.Background()); len(ents) != 2 {
			t.Errorf("%d entries, want 2", len(ents))
		}
		if got := listDir(t, filepath.Join(o.Dir(), "files")); len(got) != 2 {
			t.Errorf("files/ holds %v, want 2", got)
		}
	})

	t.Run("DuplicateAtOnce", func(t *testing.T) {
		// Two copies of one photo captured by the two workers at once:
		// exactly one entry.
		o := openTest(t, "", testOptions())
		src := t.TempDir()
		var paths []string
		b := phototest.JPEG(64, 48, 31)
		for _, n := range []string{"x1.jpg", "x2.jpg", "x3.jpg", "x4.jpg"} {
			os.WriteFile(filepath.Join(src, n), b, 0o644)
			paths = append(paths, filepath.Join(src, n))
		}
		res := o.Capture(context.Background(), paths, CaptureOptions{})
		var made, dups int
		for _, r := range res {
			switch {
			case r.Entry != nil:
				made++
			case r.Duplicate:
				dups++
			}
		}
		if made != 1 || dups != 3 {
			t.Errorf("made %d, duplicates %d; want 1 and 3", made, dups)
		}
		if got := listDir(t, filepath.Join(o.Dir(), "files")); len(got) != 1 {
			t.Errorf("files/ holds %v, want 1", got)
		}
	})
}

// jpegWithSize returns a small JPEG whose header claims w x h pixels.
func jpegWithSize(tb testing.TB, w, h int) []byte {
	tb.Helper()
	b := phototest.JPEG(16, 16, 99)
	for i := 0; i+8 < len(b); i++ {
		if b[i] == 0xFF && (b[i+1] == 0xC0 || b[i+1] == 0xC2) {
			b[i+5], b[i+6] = byte(h>>8), byte(h)
			b[i+7], b[i+8] = byte(w>>8), byte(w)
			return b
		}
	}
	tb.Fatal("no SOF marker")
	return nil
}

// fullDisk is a writeFile that fails like a full disk once the shared
// budget of bytes is spent.
type fullDisk struct {
	f      *os.File
	budget *atomic.Int64
}

func (d *fullDisk) Write(b []byte) (int, error) {
	left := d.budget.Add(-int64(len(b)))
	if left < 0 {
		n := len(b) + int(left)
		if n < 0 {
			n = 0
		}
		d.f.Write(b[:n])
		return n, &os.PathError{Op: "write", Path: d.f.Name(), Err: syscall.ENOSPC}
	}
	return d.f.Write(b)
}
func (d *fullDisk) Sync() error  { return d.f.Sync() }
func (d *fullDisk) Close() error { return d.f.Close() }

func TestOutbox_CaptureDiskFull(t *testing.T) {
	src := t.TempDir()
	p := writePhoto(t, src, "big.jpg", 40)
	st, _ := os.Stat(p)
	for _, tt := range []struct {
		name   string
		budget int64
	}{
		{"InOriginal", st.Size() / 2},
		{"InSmallCopy", st.Size() + 100},
	} {
		t.Run(tt.name, func(t *testing.T) {
			o := openTest(t, "", testOptions())
			keep := writePhoto(t, src, tt.name+"-kept.jpg", 41)
			mustCapture(t, o, keep)
			var budget atomic.Int64
			budget.Store(tt.budget)
			o.create = func(name string) (writeFile, error) {
				f, err := createFile(name)
				if err != nil {
					return nil, err
				}
				return &fullDisk{f: f.(*os.File), budget: &budget}, nil
			}
			r := o.Capture(context.Background(), []string{p}, CaptureOptions{})[0]
			if !errors.Is(r.Err, ErrDiskFull) || r.Entry != nil {
				t.Fatalf("result = %+v, want ErrDiskFull", r)
			}
			if msg := r.Err.Error(); !strings.Contains(msg, "disk") || !strings.Contains(msg, "full") || !strings.Contains(msg, "needs about") {
				t.Errorf("message %q should say the disk is full and how much is needed", msg)
			}
			ents, _ := o.Entries(context.Background())
			if len(ents) != 1 {
				t.Errorf("%d entries, want only the one captured before", len(ents))
			}
			if got := listDir(t, filepath.Join(o.Dir(), "files")); len(got) != 1 {
				t.Errorf("files/ = %v, want only the earlier entry", got)
			}
			if got := listDir(t, filepath.Join(o.Dir(), "staging")); len(got) != 0 {
				t.Errorf("staging not cleaned: %v", got)
			}
			// Space freed: the same photo is captured whole.
			o.create = createFile
			mustCapture(t, o, p)
		})
	}
}

func TestOpen(t *testing.T) {
	t.Run("RemovesStrays", func(t *testing.T) {
		dir := t.TempDir()
		o := openTest(t, dir, testOptions())
		e := mustCapture(t, o, writePhoto(t, t.TempDir(), "a.jpg", 50))[0].Entry
		o.Close()
		for _, p := range []string{"files/01STRAY0000000000000000000/original", "staging/01HALFWAY000000000000000000/copy.jpg"} {
			os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o700)
			os.WriteFile(filepath.Join(dir, p), []byte("x"), 0o600)
		}
		o = openTest(t, dir, testOptions())
		if diff := cmp.Diff([]string{e.ID}, listDir(t, filepath.Join(dir, "files"))); diff != "" {
			t.Errorf("files/ (-want +got):\n%s", diff)
		}
		if got := listDir(t, filepath.Join(dir, "staging")); len(got) != 0 {
			t.Errorf("staging = %v", got)
		}
		if _, err := o.SmallCopyPath(e.ID); err != nil {
			t.Error(err)
		}
	})
	t.Run("ErrLocked", func(t *testing.T) {
		dir := t.TempDir()
		openTest(t, dir, testOptions())
		_, err := Open(context.Background(), dir, testOptions())
		if !errors.Is(err, ErrLocked) {
			t.Fatalf("second Open = %v, want ErrLocked", err)
		}
	})
}
