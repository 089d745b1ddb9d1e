package engine

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/mirror"
	"github.com/sparkfamily/spark/engine/pippa/pippatest"
)

// workload runs a varied mix of every write on e, tagged so that it can run
// twice on one engine, and waits for its turns.
func workload(tb testing.TB, e *Engine, p *pippatest.Server, tag string) {
	tb.Helper()
	ctx := ctxT(tb)
	var turns []string
	var moments []string
	for i := range 6 {
		req := api.CreateMomentRequest{Kind: api.KindPhoto, Caption: fmt.Sprintf("%s moment %d", tag, i)}
		switch i % 3 {
		case 0:
			req.ID = newULID()
		case 1:
			req.ClientRequestID = fmt.Sprintf("%s-create-%d", tag, i)
		case 2:
			req.ID, req.ClientRequestID, req.CopyID = newULID(), fmt.Sprintf("%s-create-%d", tag, i), newULID()
		}
		mo := mustCreate(tb, e, req)
		moments = append(moments, mo.ID)
		copyID := req.CopyID
		if copyID == "" {
			copyID = newULID()
		}
		mustPut(tb, e, copyID, mo.ID, api.RoleCopy, smallJPEG(tb, i))
		if i%2 == 0 {
			mustPut(tb, e, newULID(), mo.ID, api.RoleOriginal, bytes.Repeat([]byte{byte(i)}, 5000))
		}
		// A repeat of each write, which must leave no trace.
		mustCreate(tb, e, req)
	}
	caption := tag + " edited"
	if _, _, err := e.EditMoment(ctx, moments[1], api.EditMomentRequest{Caption: &caption}); err != nil {
		tb.Fatal(err)
	}
	if _, _, err := e.PutWords(ctx, moments[0], api.Words{Text: tag + " words in the photo", Lang: "eng"}); err != nil {
		tb.Fatal(err)
	}
	// Two captions written from the same one on two computers: the
	// second keeps the first as an alternative.
	base := fmt.Sprintf("%s moment 3", tag)
	for i, c := range []string{tag + " from the desktop", tag + " from the laptop"} {
		written := time.Date(2026, 12, 1, 9, 59+i, 0, 0, time.UTC)
		if _, _, err := e.EditMoment(ctx, moments[3], api.EditMomentRequest{Caption: &c, BaseCaption: &base, WrittenAt: &written,
			ClientRequestID: fmt.Sprintf("%s-edit-%d", tag, i)}); err != nil {
			tb.Fatal(err)
		}
	}
	if _, err := e.DeleteMoment(ctx, moments[2]); err != nil {
		tb.Fatal(err)
	}
	p.FailNext(1, 400) // one failed turn in the mix
	for i, id := range moments[:3] {
		t, _, err := e.StartTurn(ctx, id, api.StartTurnRequest{ClientRequestID: fmt.Sprintf("%s-turn-%d", tag, i), Mode: api.ModePractical})
		if err != nil {
			tb.Fatal(err)
		}
		turns = append(turns, t.ID)
	}
	jt, _, err := e.StartJob(ctx, moments[3], tag+"-job")
	if err != nil {
		tb.Fatal(err)
	}
	for _, t := range jt {
		turns = append(turns, t.ID)
	}
	for _, text := range []string{tag + " call the bank", tag + " buy stamps", tag + " water the plants"} {
		if _, _, err := e.KeepPhrase(ctx, api.KeepPhraseRequest{Text: text, MomentID: moments[0]}); err != nil {
			tb.Fatal(err)
		}
	}
	if _, err := e.RemovePhrase(ctx, "keep:"+tag+" buy stamps"); err != nil {
		tb.Fatal(err)
	}
	_, rt, _, err := e.StartRecall(ctx, tag+"-recall")
	if err != nil {
		tb.Fatal(err)
	}
	turns = append(turns, rt.ID)
	for _, id := range turns {
		waitTurn(tb, e, id)
	}
	// A moment removed for good, with a photo of its own: on an engine
	// that keeps deleted moments for a moment only (purgeAtOnce).
	gone := mustCreate(tb, e, api.CreateMomentRequest{ID: newULID(), Caption: tag + " gone for good"})
	mustPut(tb, e, newULID(), gone.ID, api.RoleCopy, bytes.Repeat([]byte(tag), 700))
	if _, err := e.DeleteMoment(ctx, gone.ID); err != nil {
		tb.Fatal(err)
	}
	if _, err := e.purge(ctx); err != nil {
		tb.Fatal(err)
	}
}

// purgeAtOnce keeps deleted moments for a nanosecond: the workload's
// purge removes them.
func purgeAtOnce(c *Config) { c.KeepDeleted = time.Nanosecond }

func TestRebuild_EqualsLiveMirror(t *testing.T) {
	dir := t.TempDir()
	p := pippatest.New(t)
	e := openEngine(t, dir, withSeats(p.Config()), purgeAtOnce)
	workload(t, e, p, "a")
	workload(t, e, p, "b")
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	live := dumpMirror(t, filepath.Join(dir, MirrorFile))
	for _, table := range mirror.Tables {
		if len(live[table]) == 0 {
			t.Fatalf("the workload left table %s empty; it must exercise every table", table)
		}
	}
	if err := Rebuild(ctxT(t), dir, quiet); err != nil {
		t.Fatal(err)
	}
	rebuilt := dumpMirror(t, filepath.Join(dir, MirrorFile))
	if diff := cmp.Diff(live, rebuilt); diff != "" {
		t.Errorf("rebuilt mirror differs from the live one (-live +rebuilt):\n%s", diff)
	}
	for _, leftover := range []string{MirrorFile + ".rebuild", MirrorFile + ".old"} {
		if _, err := os.Stat(filepath.Join(dir, leftover)); !os.IsNotExist(err) {
			t.Errorf("rebuild left %s behind", leftover)
		}
	}

	// The request memory came back: repeats still answer without writing.
	e2 := openEngine(t, dir, withSeats(p.Config()))
	before := opCounts(t, e2)
	if _, created, err := e2.CreateMoment(ctxT(t), api.CreateMomentRequest{ClientRequestID: "a-create-1", Kind: api.KindPhoto}); err != nil || created {
		t.Errorf("repeat create after rebuild: created=%v err=%v", created, err)
	}
	if _, created, err := e2.StartTurn(ctxT(t), newULID(), api.StartTurnRequest{ClientRequestID: "b-turn-0", Mode: api.ModePractical}); err != nil || created {
		t.Errorf("repeat turn after rebuild: created=%v err=%v", created, err)
	}
	if diff := cmp.Diff(before, opCounts(t, e2)); diff != "" {
		t.Errorf("repeats after rebuild wrote ops:\n%s", diff)
	}
}

func TestOpen_CatchesUpALaggingMirror(t *testing.T) {
	dir := t.TempDir()
	p := pippatest.New(t)
	e := openEngine(t, dir, withSeats(p.Config()))
	workload(t, e, p, "a")
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(t.TempDir(), "stale.db")
	copyFile(t, filepath.Join(dir, MirrorFile), stale)

	e = openEngine(t, dir, withSeats(p.Config()))
	workload(t, e, p, "b")
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	want := dumpMirror(t, filepath.Join(dir, MirrorFile))

	// Put the old mirror back: it lacks every op of the second workload.
	if err := removeDB(filepath.Join(dir, MirrorFile)); err != nil {
		t.Fatal(err)
	}
	copyFile(t, stale, filepath.Join(dir, MirrorFile))
	e = openEngine(t, dir, withSeats(p.Config()))
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, dumpMirror(t, filepath.Join(dir, MirrorFile))); diff != "" {
		t.Errorf("caught-up mirror differs (-want +got):\n%s", diff)
	}
}

func TestOpen_StaleSchemaRefused(t *testing.T) {
	dir := t.TempDir()
	e := openEngine(t, dir)
	mo := mustCreate(t, e, api.CreateMomentRequest{})
	e.Close()
	setUserVersion(t, filepath.Join(dir, MirrorFile), 99)

	_, err := tryOpen(t, dir)
	if !errors.Is(err, mirror.ErrStale) || !strings.Contains(err.Error(), "spark-engine rebuild --data "+dir) {
		t.Fatalf("Open on a stale mirror: %v; want ErrStale saying `spark-engine rebuild --data %s`", err, dir)
	}
	if err := Rebuild(ctxT(t), dir, quiet); err != nil {
		t.Fatal(err)
	}
	e = openEngine(t, dir)
	if _, err := e.Moment(ctxT(t), mo.ID); err != nil {
		t.Errorf("moment after rebuild: %v", err)
	}
}

// sqlExec runs statements on a mirror file behind the engine's back.
func sqlExec(tb testing.TB, path string, stmts ...string) {
	tb.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	for _, s := range stmts {
		if _, err := db.ExecContext(context.Background(), s); err != nil {
			tb.Fatalf("%s: %v", s, err)
		}
	}
}

func setUserVersion(tb testing.TB, path string, v int) {
	tb.Helper()
	sqlExec(tb, path, fmt.Sprintf("PRAGMA user_version = %d", v))
}

func TestFsck(t *testing.T) {
	setup := func(t *testing.T) (dir string, md *api.Media) {
		dir = t.TempDir()
		p := pippatest.New(t)
		e := openEngine(t, dir, withSeats(p.Config()))
		workload(t, e, p, "a")
		mo := mustCreate(t, e, api.CreateMomentRequest{})
		md = mustPut(t, e, newULID(), mo.ID, api.RoleOriginal, []byte("the original bytes"))
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		return dir, md
	}
	fsck := func(t *testing.T, dir string) (bool, string) {
		var out strings.Builder
		ok, err := Fsck(ctxT(t), dir, &out)
		if err != nil {
			t.Fatalf("Fsck: %v\n%s", err, out.String())
		}
		return ok, out.String()
	}

	t.Run("Good", func(t *testing.T) {
		dir, _ := setup(t)
		if ok, out := fsck(t, dir); !ok || !strings.Contains(out, "all good") {
			t.Errorf("fsck of a good dir: ok=%v\n%s", ok, out)
		}
	})
	t.Run("FlippedMediaByte", func(t *testing.T) {
		dir, md := setup(t)
		e := openEngine(t, dir)
		path := blobPath(t, e, md.SHA256)
		e.Close()
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		b[3] ^= 0x01
		os.Chmod(path, 0o600)
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
		ok, out := fsck(t, dir)
		if ok || !strings.Contains(out, md.ID) {
			t.Errorf("fsck with a flipped media byte: ok=%v, want false naming %s\n%s", ok, md.ID, out)
		}
	})
	t.Run("Hashed", func(t *testing.T) {
		// A blob the caller hashed as it wrote it is checked for its
		// size only: a flipped byte goes unread, a cut one is found.
		dir, md := setup(t)
		e := openEngine(t, dir)
		path := blobPath(t, e, md.SHA256)
		e.Close()
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		os.Chmod(path, 0o600)
		hashed := func(sha string) bool { return sha == md.SHA256 }
		run := func(body []byte) (bool, string) {
			if err := os.WriteFile(path, body, 0o600); err != nil {
				t.Fatal(err)
			}
			var out strings.Builder
			ok, err := FsckWith(ctxT(t), dir, &out, FsckOptions{Hashed: hashed})
			if err != nil {
				t.Fatal(err)
			}
			return ok, out.String()
		}
		if ok, out := run(b); !ok || !strings.Contains(out, "1 blobs hashed as they were written") {
			t.Errorf("fsck with the blob hashed by its writer: ok=%v\n%s", ok, out)
		}
		if ok, out := run(b[:len(b)-1]); ok || !strings.Contains(out, md.ID) {
			t.Errorf("fsck with that blob cut by a byte: ok=%v, want false naming %s\n%s", ok, md.ID, out)
		}
	})
	t.Run("Folded", func(t *testing.T) {
		// A mirror the caller folded from the whole log is not folded
		// again: fsck checks it holds the whole log, and the media.
		folded := func(t *testing.T, dir string) (bool, string) {
			var out strings.Builder
			ok, err := FsckWith(ctxT(t), dir, &out, FsckOptions{Folded: true})
			if err != nil {
				t.Fatalf("FsckWith: %v\n%s", err, out.String())
			}
			return ok, out.String()
		}
		dir, md := setup(t)
		if ok, out := folded(t, dir); !ok || !strings.Contains(out, "was folded from the whole log") || !strings.Contains(out, "1 blobs re-hashed") {
			t.Errorf("fsck of a folded mirror: ok=%v\n%s", ok, out)
		}
		e := openEngine(t, dir)
		path := blobPath(t, e, md.SHA256)
		e.Close()
		os.Chmod(path, 0o600)
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
		if ok, out := folded(t, dir); ok || !strings.Contains(out, md.ID) {
			t.Errorf("fsck of a folded mirror whose photo is gone: ok=%v, want false naming %s\n%s", ok, md.ID, out)
		}
		dir, _ = setup(t)
		sqlExec(t, filepath.Join(dir, MirrorFile), "UPDATE meta SET value = value - 1 WHERE key = 'last_seq'")
		if ok, out := folded(t, dir); ok || !strings.Contains(out, "the log ends at seq") {
			t.Errorf("fsck of a mirror a seq behind its log, said to be folded: ok=%v\n%s", ok, out)
		}
	})
	t.Run("MirrorDisagrees", func(t *testing.T) {
		dir, _ := setup(t)
		sqlExec(t, filepath.Join(dir, MirrorFile), "UPDATE moments SET caption = 'tampered' WHERE id = (SELECT min(id) FROM moments)")
		ok, out := fsck(t, dir)
		if ok || !strings.Contains(out, "moments:") || !strings.Contains(out, "tampered") {
			t.Errorf("fsck with a mirror that disagrees: ok=%v\n%s", ok, out)
		}
	})
	t.Run("NoMirror", func(t *testing.T) {
		dir, _ := setup(t)
		if err := removeDB(filepath.Join(dir, MirrorFile)); err != nil {
			t.Fatal(err)
		}
		ok, out := fsck(t, dir)
		if !ok || !strings.Contains(out, "no mirror") {
			t.Errorf("fsck with no mirror: ok=%v\n%s", ok, out)
		}
		if _, err := os.Stat(filepath.Join(dir, MirrorFile)); !os.IsNotExist(err) {
			t.Errorf("fsck created a mirror (stat: %v)", err)
		}
	})
	t.Run("CorruptLog", func(t *testing.T) {
		dir, _ := setup(t)
		path := filepath.Join(dir, LogFile)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		b[len(b)/2] ^= 0x40
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
		ok, out := fsck(t, dir)
		if ok || !strings.Contains(out, "FAIL log") {
			t.Errorf("fsck with a corrupt log: ok=%v\n%s", ok, out)
		}
	})
}

func TestOpen_MirrorAheadOfLogRefused(t *testing.T) {
	dir := t.TempDir()
	e := openEngine(t, dir)
	mustCreate(t, e, api.CreateMomentRequest{})
	e.Close()
	if err := os.Remove(filepath.Join(dir, LogFile)); err != nil {
		t.Fatal(err)
	}
	_, err := tryOpen(t, dir)
	if err == nil || !strings.Contains(err.Error(), "restore the log from a backup") {
		t.Fatalf("Open with a log behind the mirror: %v; want a refusal naming the way out", err)
	}
}
