package engine

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/sparkfamily/spark/engine/api"
)

// testdata/main-v8 is a data directory (op log, mirror of schema version
// 8, media) written by the engine of main at commit a7c16bb, before
// deleted moments were purged, with a clock starting 2026-10-01 09:00 UTC
// one minute on per call (see testdata/README.md): three photos of
// dad-laptop, "gas meter" (words, a caption edited from its base), "letter
// from the council" and "old receipt" (words; its original the same bytes
// as the council letter's copy), the receipt then the letter deleted.

// Main's data opens with its mirror migrated to version 9, equal to a
// rebuild. On 2026-12-07 both deletes are more than 30 days old: the engine
// purges the two moments, removes the receipt's copy, and keeps the bytes
// both held until the last of them went; the gas meter is untouched.
func TestFixtureV8_Purge(t *testing.T) {
	dir := copyFixture(t, "main-v8")
	var out strings.Builder
	if ok, err := Fsck(ctxT(t), dir, &out); err != nil || !ok {
		t.Fatalf("fsck of main's data = %v, %v:\n%s", ok, err, out.String())
	}
	const (
		meter   = "01KBW0000000000000000000A1"
		council = "01KBW0000000000000000000B1"
		receipt = "01KBW0000000000000000000C1"
	)
	c := &fakeNow{t: time.Date(2026, 10, 20, 9, 0, 0, 0, time.UTC)}
	e := openEngine(t, dir, withClock(c), func(cfg *Config) { cfg.UploadSweepEvery = time.Hour })
	ctx := ctxT(t)
	// Day 19: both wait in Recently deleted.
	if n, err := e.purge(ctx); err != nil || n != 0 {
		t.Fatalf("purge on 2026-10-20 = %d, %v; want nothing", n, err)
	}
	r, err := e.Moment(ctx, receipt)
	if err != nil || r.DeletedAt == nil || r.Words == nil || r.Original == nil {
		t.Fatalf("main's deleted receipt = %+v, %v", r, err)
	}
	shared, own := r.Original.SHA256, r.Copy.SHA256
	c.add(48 * 24 * time.Hour) // to 2026-12-07 09:00
	if n, err := e.purge(ctx); err != nil || n != 2 {
		t.Fatalf("purge on 2026-12-07 = %d, %v; want main's two deleted moments", n, err)
	}
	for _, id := range []string{council, receipt} {
		_, err := e.Moment(ctx, id)
		wantCode(t, err, api.CodeMomentPurged)
	}
	for _, sha := range []string{shared, own} {
		if _, err := os.Stat(blobPath(t, e, sha)); !os.IsNotExist(err) {
			t.Errorf("blob %s of the purged moments is still stored: %v", sha, err)
		}
	}
	m, err := e.Moment(ctx, meter)
	if err != nil || m.Caption != "gas meter reading" || m.Words == nil || m.Copy == nil {
		t.Fatalf("main's live moment = %+v, %v", m, err)
	}
	if _, err := os.Stat(blobPath(t, e, m.Copy.SHA256)); err != nil {
		t.Errorf("the live moment's photo: %v", err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if ok, err := Fsck(ctxT(t), dir, &out); err != nil || !ok {
		t.Fatalf("fsck after the purge = %v, %v:\n%s", ok, err, out.String())
	}
	wantMigratedIsFold(t, dir)
}
