package app

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/sparkfamily/spark/app/view"
	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/enginetest"
)

// writeLargePhoto writes a JPEG of noise, far larger than its small copy.
func writeLargePhoto(tb testing.TB, dir string) string {
	tb.Helper()
	r := rand.New(rand.NewPCG(1, 2))
	img := image.NewRGBA(image.Rect(0, 0, 2400, 1800))
	for y := range 1800 {
		for x := range 2400 {
			img.Set(x, y, color.RGBA{uint8(r.IntN(256)), uint8(r.IntN(256)), uint8(r.IntN(256)), 255})
		}
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 95}); err != nil {
		tb.Fatal(err)
	}
	p := filepath.Join(dir, "large.jpg")
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		tb.Fatal(err)
	}
	return p
}

// TestFullPhoto_RefusedThenKeptWithout (issue 21, item 1): the family
// engine takes a photo's moment and small copy but refuses its original
// (too large). The moment says its full photo was refused, not that it is
// on its way; removed from the Outbox, it says the full photo never comes;
// and it can be deleted too, through the outbox.
func TestFullPhoto_RefusedThenKeptWithout(t *testing.T) {
	src := writeLargePhoto(t, t.TempDir())
	fi, err := os.Stat(src)
	if err != nil {
		t.Fatal(err)
	}
	// A limit the original is over, and its small copy (a quarter of its
	// pixels) under.
	remote := enginetest.Start(t, enginetest.WithMaxMediaSize(fi.Size()*6/10))
	a, _ := startApp(t, t.TempDir(), nil)
	if _, err := a.Settings.UseRemote(remote.URL, remote.Token); err != nil {
		t.Fatal(err)
	}
	res, err := a.Capture.Files("b", []string{src})
	if err != nil || res[0].Error != nil {
		t.Fatalf("Capture.Files() = %+v, %v", res, err)
	}
	id := res[0].MomentID
	var es []Entry
	waitFor(t, "the original refused, the moment and small copy taken", func() bool {
		es, err = a.Outbox.Entries()
		return err == nil && len(es) == 1 && es[0].State == "parked" && es[0].Steps[0].Done && es[0].Steps[1].Done
	})
	var mo view.Moment
	// Read from this computer's copy of the family engine, which may hold
	// the moment a sync before its small copy: waited for with it.
	waitFor(t, "the moment from the engine, its full photo refused, its small copy there", func() bool {
		mo, err = a.Moments.Get(id)
		return err == nil && !mo.Pending && mo.FullPhoto == view.FullRefused && mo.Copy != nil
	})
	if mo.Original != nil || mo.Copy == nil {
		t.Errorf("Get = %+v; want the small copy and no original", mo)
	}

	// Kept without its full photo: nothing will send it, and it says so.
	if err := a.Outbox.Discard(es[0].ID); err != nil {
		t.Fatal(err)
	}
	if mo, err = a.Moments.Get(id); err != nil || mo.FullPhoto != view.FullNone || mo.Pending {
		t.Errorf("Get after the capture was removed = %+v, %v; want FullPhoto %q", mo, err, view.FullNone)
	}
	// The list (this computer's copy of the family engine, which may lag
	// the engine by a sync) shows it once, kept without its full photo.
	var listed []view.Moment
	waitFor(t, "the moment in the list", func() bool {
		page, err := a.Moments.Page("", 50)
		listed = listed[:0]
		for _, m := range page.Moments {
			if m.ID == id {
				listed = append(listed, m)
			}
		}
		return err == nil && len(listed) > 0
	})
	if len(listed) != 1 || listed[0].FullPhoto != view.FullNone {
		t.Errorf("Page lists %+v; want the moment once, FullPhoto %q", listed, view.FullNone)
	}

	// Or deleted too: through the outbox, once.
	if ok, err := a.Moments.Delete(id); err != nil || !ok {
		t.Fatalf("Delete = %v, %v", ok, err)
	}
	waitFor(t, "the delete sent", delivered(a))
	if got := remote.OpCount(t, api.OpMomentDelete); got != 1 {
		t.Errorf("%d moment.delete ops at the engine; want 1", got)
	}
}
