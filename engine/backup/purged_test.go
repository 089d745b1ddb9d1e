package backup

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/sparkfamily/spark/engine"
	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/media"
	"github.com/sparkfamily/spark/engine/oplog"
)

// purgeNow opens an engine on dir that keeps deleted moments for a
// nanosecond, waits until its first housekeeping round has removed the
// photos of every deleted moment in sha, and closes it.
func purgeNow(t *testing.T, dir string, shas ...string) {
	t.Helper()
	e, err := engine.Open(context.Background(), engine.Config{Dir: dir, Logger: quiet, KeepDeleted: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	store, err := media.OpenWith(filepath.Join(dir, engine.MediaDir), media.Options{ReadOnly: true, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for _, sha := range shas {
		for {
			ok, err := store.Has(sha)
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the photo %s of a deleted moment is still there after 10 s", sha)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// deletedPhoto adds a photo moment, deletes it, and returns its photo's
// SHA-256.
func deletedPhoto(t *testing.T, e *engine.Engine, seed int) (moment, sha string) {
	t.Helper()
	ctx := context.Background()
	mo, _, err := e.CreateMoment(ctx, api.CreateMomentRequest{Kind: api.KindPhoto, Caption: "to be purged"})
	if err != nil {
		t.Fatal(err)
	}
	md, _, err := e.PutMedia(ctx, engine.PutMedia{ID: ulid.Make().String(), MomentID: mo.ID, Role: api.RoleOriginal, ContentType: "image/jpeg", Body: bytes.NewReader(photo(t, seed)), Size: -1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.DeleteMoment(ctx, mo.ID); err != nil {
		t.Fatal(err)
	}
	return mo.ID, md.SHA256
}

// seqOf returns the seq of the first op of the log in dir that is op on
// moment id.
func seqOf(t *testing.T, dir, op, id string) uint64 {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, engine.LogFile))
	if err != nil {
		t.Fatal(err)
	}
	rd := oplog.NewReader(bytes.NewReader(b), "ops.log", 0)
	for {
		rec, _, _, err := rd.Next()
		if err == io.EOF {
			t.Fatalf("no %s of %s in the log", op, id)
		}
		if err != nil {
			t.Fatal(err)
		}
		if rec.Op == op && bytes.Contains(rec.Data, []byte(id)) {
			return rec.Seq
		}
	}
}

// A moment removed for good before its photo was shipped: the pass ships
// the log without the photo, and a restore of everything, or of a point
// after the purge, is whole and passes fsck. A restore to a point before
// the purge says the photo is not in the copy and why. A photo shipped
// before its moment was purged stays in the copy (nothing shipped is
// removed), so a restore to before the purge brings it back.
func TestShip_Purged(t *testing.T) {
	src := t.TempDir()
	e := openEngine(t, src)
	capture(t, e, 0, 6)
	shippedMoment, shippedSHA := deletedPhoto(t, e, 1001)
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	tgt, err := OpenFolder(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ship(t, src, tgt, 2<<10)

	e = openEngine(t, src)
	lostMoment, lostSHA := deletedPhoto(t, e, 1002)
	capture(t, e, 100, 4)
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	purgeNow(t, src, shippedSHA, lostSHA)

	st := ship(t, src, tgt, 2<<10)
	want, last := logPrefixBytes(t, src, 0)
	if st.LastSeq != last {
		t.Fatalf("shipped through seq %d, the log ends at %d", st.LastSeq, last)
	}
	if _, err := tgt.Stat(context.Background(), mediaName(shippedSHA)); err != nil {
		t.Errorf("the photo shipped before its moment was purged: %v; want it kept in the copy", err)
	}

	t.Run("All", func(t *testing.T) {
		dir, _ := restore(t, tgt, RestoreOptions{})
		sameMirror(t, dir, want)
	})
	// Both purges are logged in one batch, a group a restore takes whole
	// or not at all.
	purges := min(seqOf(t, src, api.OpMomentPurge, shippedMoment), seqOf(t, src, api.OpMomentPurge, lostMoment))
	t.Run("BeforeTheLostPhoto", func(t *testing.T) {
		seq := seqOf(t, src, api.OpMomentCreate, lostMoment) - 1
		dir, _ := restore(t, tgt, RestoreOptions{Seq: seq})
		prefix, _ := logPrefixBytes(t, src, seq)
		sameMirror(t, dir, prefix)
		store, err := media.OpenWith(filepath.Join(dir, engine.MediaDir), media.Options{ReadOnly: true, Logger: quiet})
		if err != nil {
			t.Fatal(err)
		}
		if ok, err := store.Has(shippedSHA); err != nil || !ok {
			t.Errorf("the photo of a moment deleted, not yet purged at that point: %v, %v; want it restored", ok, err)
		}
	})
	t.Run("BeforeThePurges", func(t *testing.T) {
		seq := purges - 1
		var out bytes.Buffer
		_, err := Restore(context.Background(), tgt, filepath.Join(t.TempDir(), "r"), RestoreOptions{Seq: seq, Key: testKey, Out: &out, Logger: quiet})
		if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "removed for good") || !strings.Contains(err.Error(), lostMoment) {
			t.Fatalf("a restore to before the purge of a photo never shipped: %v; want it to name the moment and say why", err)
		}
	})
}
