package outbox

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sparkfamily/spark/engine/enginetest"
)

func TestOutbox_ExportOriginal(t *testing.T) {
	ctx := context.Background()

	t.Run("OK", func(t *testing.T) {
		o := openTest(t, "", testOptions())
		src := writePhoto(t, t.TempDir(), "keep me.jpg", 900)
		want, _ := os.ReadFile(src)
		e := mustCapture(t, o, src)[0].Entry
		// The folder does not exist yet; the first copy takes the name,
		// the second is numbered beside it.
		dir := filepath.Join(t.TempDir(), "saved")
		for _, wantName := range []string{"keep me.jpg", "keep me (2).jpg"} {
			path, err := o.ExportOriginal(ctx, e.ID, dir)
			if err != nil {
				t.Fatalf("ExportOriginal: %v", err)
			}
			if got, err := os.ReadFile(path); err != nil || string(got) != string(want) || path != filepath.Join(dir, wantName) {
				t.Errorf("exported %s (%d bytes, %v); want the original as %s", path, len(got), err, wantName)
			}
		}
		// The entry stays, with its files, to be delivered.
		got, err := o.Entry(ctx, e.ID)
		if err != nil || got.State != Pending {
			t.Errorf("Entry after export = %+v, %v; want it still pending", got, err)
		}
		if _, err := os.Stat(filepath.Join(o.Dir(), "files", e.ID, originalName)); err != nil {
			t.Errorf("the outbox's original after export: %v", err)
		}
	})

	t.Run("ErrNotFound", func(t *testing.T) {
		o := openTest(t, "", testOptions())
		dir := t.TempDir()
		if _, err := o.ExportOriginal(ctx, "01ARZ3NDEKTSV4RRFFQ69G5FAV", dir); !errors.Is(err, ErrNotFound) {
			t.Errorf("ExportOriginal(unknown) = %v; want ErrNotFound", err)
		}
		if got := listDir(t, dir); len(got) != 0 {
			t.Errorf("files written: %v", got)
		}
	})

	t.Run("ErrNoOriginal", func(t *testing.T) {
		eng := enginetest.Start(t)
		o := openTest(t, "", testOptions())
		e := mustCapture(t, o, writePhoto(t, t.TempDir(), "sent.jpg", 901))[0].Entry
		o.SetTarget(Target{URL: eng.URL, Token: eng.Token})
		startDrain(t, o)
		if c := settle(t, o, 10*time.Second); c != (Counts{Done: 1}) {
			t.Fatalf("counts = %+v, want 1 done", c)
		}
		// The files go just after the entry is marked done.
		waitFor(t, 5*time.Second, "the delivered files to go", func() bool {
			_, err := os.Stat(o.entryDir(e.ID))
			return errors.Is(err, fs.ErrNotExist)
		})
		dir := t.TempDir()
		if _, err := o.ExportOriginal(ctx, e.ID, dir); !errors.Is(err, ErrNoOriginal) {
			t.Errorf("ExportOriginal(delivered) = %v; want ErrNoOriginal", err)
		}
		if got := listDir(t, dir); len(got) != 0 {
			t.Errorf("files written: %v", got)
		}
	})
}
