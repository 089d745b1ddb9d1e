package engine

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/sparkfamily/spark/engine/api"
)

// withClock stamps the engine's ops with c (fakeNow, turnlimit_test.go).
func withClock(c *fakeNow) option { return func(cfg *Config) { cfg.Now = c.now } }

// A moment deleted 30 days ago is removed for good by the engine, with the
// photos no other moment holds: it leaves Recently deleted, an edit, a
// restore, words or a photo for it are answered moment_purged, and the
// bytes are gone from the store. A moment deleted later waits; the same
// bytes held by another moment stay; fsck passes and the mirror equals a
// rebuild of the log.
func TestPurge(t *testing.T) {
	dir := t.TempDir()
	c := &fakeNow{t: time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)}
	e := openEngine(t, dir, withClock(c), func(cfg *Config) { cfg.UploadSweepEvery = time.Hour })
	ctx := ctxT(t)

	old := mustCreate(t, e, api.CreateMomentRequest{ID: newULID(), Caption: "the old letter"})
	copyA := mustPut(t, e, newULID(), old.ID, api.RoleCopy, smallJPEG(t, 1))
	origA := mustPut(t, e, newULID(), old.ID, api.RoleOriginal, smallJPEG(t, 2))
	if _, _, err := e.PutWords(ctx, old.ID, api.Words{Text: "RD/7731/Q", Lang: "eng"}); err != nil {
		t.Fatal(err)
	}
	// Another moment holds the same bytes as the old one's original.
	twin := mustCreate(t, e, api.CreateMomentRequest{ID: newULID()})
	mustPut(t, e, newULID(), twin.ID, api.RoleCopy, smallJPEG(t, 2))
	if _, err := e.DeleteMoment(ctx, old.ID); err != nil {
		t.Fatal(err)
	}
	c.add(20 * 24 * time.Hour)
	recent := mustCreate(t, e, api.CreateMomentRequest{ID: newULID(), Kind: api.KindNote, Caption: "deleted later"})
	if _, err := e.DeleteMoment(ctx, recent.ID); err != nil {
		t.Fatal(err)
	}

	// Day 20: nothing is due.
	if n, err := e.purge(ctx); err != nil || n != 0 {
		t.Fatalf("purge on day 20 = %d, %v; want nothing", n, err)
	}
	c.add(10*24*time.Hour + time.Minute)
	if n, err := e.purge(ctx); err != nil || n != 1 {
		t.Fatalf("purge on day 30 = %d, %v; want the old moment", n, err)
	}
	if n, err := e.purge(ctx); err != nil || n != 0 {
		t.Fatalf("purge again = %d, %v; want nothing", n, err)
	}

	if _, err := os.Stat(blobPath(t, e, copyA.SHA256)); !os.IsNotExist(err) {
		t.Errorf("the purged moment's copy is still stored: %v", err)
	}
	if _, err := os.Stat(blobPath(t, e, origA.SHA256)); err != nil {
		t.Errorf("bytes another moment holds were removed: %v", err)
	}
	var deleted []string
	if _, err := e.EachDeletedMoment(ctx, 50, "", func(m *api.Moment) error { deleted = append(deleted, m.ID); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(deleted) != 1 || deleted[0] != recent.ID {
		t.Errorf("Recently deleted = %v, want only %s", deleted, recent.ID)
	}
	_, err := e.Moment(ctx, old.ID)
	wantCode(t, err, api.CodeMomentPurged)
	if _, _, err := e.EditMoment(ctx, old.ID, api.EditMomentRequest{Caption: ptr("typed long after")}); api.ErrorCode(err) != api.CodeMomentPurged {
		t.Errorf("an edit of a purged moment: %v, want %s", err, api.CodeMomentPurged)
	}
	_, _, err = e.RestoreMoment(ctx, old.ID)
	wantCode(t, err, api.CodeMomentPurged)
	_, _, err = e.PutWords(ctx, old.ID, api.Words{Text: "again", Lang: "eng"})
	wantCode(t, err, api.CodeMomentPurged)
	if again, err := e.DeleteMoment(ctx, old.ID); err != nil || again {
		t.Errorf("deleting a purged moment = %v, %v; want harmless", again, err)
	}
	_, _, err = e.PutMedia(ctx, PutMedia{ID: newULID(), MomentID: old.ID, Role: api.RoleCopy, ContentType: "image/jpeg", Body: strings.NewReader("x")})
	wantCode(t, err, api.CodeMomentPurged)
	hits, err := e.Search(ctx, "7731", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits.Results) != 0 {
		t.Errorf("search finds a purged moment's words: %+v", hits.Results)
	}

	// The same bytes added again are kept, and a later purge round leaves
	// them.
	back := mustCreate(t, e, api.CreateMomentRequest{ID: newULID()})
	mustPut(t, e, newULID(), back.ID, api.RoleCopy, smallJPEG(t, 1))
	if _, err := e.purge(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(blobPath(t, e, copyA.SHA256)); err != nil {
		t.Errorf("bytes stored again after a purge were removed: %v", err)
	}
	if n := opCounts(t, e)[api.OpMomentPurge]; n != 1 {
		t.Errorf("%d moment.purge ops logged, want 1", n)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if ok, err := Fsck(ctxT(t), dir, &out); err != nil || !ok {
		t.Fatalf("fsck after a purge = %v, %v:\n%s", ok, err, out.String())
	}
	wantMigratedIsFold(t, dir)
}

// A crash after the purge is logged and before its photos are removed
// leaves them; the engine removes them when it next opens.
func TestPurge_RemovesAfterACrash(t *testing.T) {
	dir := t.TempDir()
	c := &fakeNow{t: time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)}
	e := openEngine(t, dir, withClock(c), func(cfg *Config) { cfg.UploadSweepEvery = time.Hour })
	ctx := ctxT(t)
	mo := mustCreate(t, e, api.CreateMomentRequest{ID: newULID()})
	md := mustPut(t, e, newULID(), mo.ID, api.RoleCopy, smallJPEG(t, 3))
	if _, err := e.DeleteMoment(ctx, mo.ID); err != nil {
		t.Fatal(err)
	}
	c.add(31 * 24 * time.Hour)
	// Only the op, as a crash right after it leaves things.
	if n, err := e.purgeMoments(ctx, []string{mo.ID}, c.now().Add(-api.RecentlyDeletedFor)); err != nil || n != 1 {
		t.Fatalf("purgeMoments = %d, %v", n, err)
	}
	if _, err := os.Stat(blobPath(t, e, md.SHA256)); err != nil {
		t.Fatalf("the photo went before its removal: %v", err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e = openEngine(t, dir, withClock(c), func(cfg *Config) { cfg.UploadSweepEvery = time.Hour })
	waitFor(t, "the purged moment's photo removed at open", func() bool {
		_, err := os.Stat(blobPath(t, e, md.SHA256))
		return os.IsNotExist(err)
	})
}

// KeepDeleted sets how long deleted moments wait; negative keeps them.
func TestPurge_KeepDeleted(t *testing.T) {
	for _, tc := range []struct {
		name string
		keep time.Duration
		days int
		want int
	}{
		{"seven days, after eight", 7 * 24 * time.Hour, 8, 1},
		{"seven days, after six", 7 * 24 * time.Hour, 6, 0},
		{"never", -1, 400, 0},
		{"sixty days, after fifty", 60 * 24 * time.Hour, 50, 0},
		{"default, after 29 days", 0, 29, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &fakeNow{t: time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)}
			e := openEngine(t, t.TempDir(), withClock(c), func(cfg *Config) { cfg.KeepDeleted, cfg.UploadSweepEvery = tc.keep, time.Hour })
			ctx := ctxT(t)
			mo := mustCreate(t, e, api.CreateMomentRequest{ID: newULID(), Kind: api.KindNote, Caption: "x"})
			if _, err := e.DeleteMoment(ctx, mo.ID); err != nil {
				t.Fatal(err)
			}
			c.add(time.Duration(tc.days) * 24 * time.Hour)
			if n, err := e.purge(ctx); err != nil || n != tc.want {
				t.Errorf("purge = %d, %v; want %d", n, err, tc.want)
			}
			// Recently deleted lists what the engine keeps, for as long.
			listed := 0
			if _, err := e.EachDeletedMoment(ctx, 10, "", func(*api.Moment) error { listed++; return nil }); err != nil {
				t.Fatal(err)
			}
			if listed != 1-tc.want {
				t.Errorf("Recently deleted lists %d moments, want %d", listed, 1-tc.want)
			}
		})
	}
}
