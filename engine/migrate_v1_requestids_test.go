package engine

import (
	"bytes"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/mirror"
	"github.com/sparkfamily/spark/engine/pippa/pippatest"
)

// testdata/main-v1 is a data directory (op log, mirror, media) written by the
// engine of main before the derived request ids of jobs and quick recalls
// (mirror schema version 1): there, a job's turns and a recall's turn
// carried the job or recall id itself as their request id. Tests copy it
// aside (copyFixture) and open it with today's engine.

// TestWriteFixtureV1 wrote testdata/main-v1 with the engine of that main. It runs
// only when SPARK_WRITE_FIXTURE names the directory to write; it is kept so
// that the fixture's making can be read, not to be run again on newer code.
func TestWriteFixtureV1(t *testing.T) {
	out := os.Getenv("SPARK_WRITE_FIXTURE")
	if out == "" {
		t.Skip("SPARK_WRITE_FIXTURE is not set: the fixture is written once, by the code of its version")
	}
	dir := t.TempDir()
	p := pippatest.New(t)
	a, b := p.Config(), p.Config()
	a.Name, b.Name = "first", "second"
	e := openEngine(t, dir, withSeats(a, b))
	ctx := ctxT(t)

	photo := mustCreate(t, e, api.CreateMomentRequest{ClientRequestID: "fx-create-photo", Kind: api.KindPhoto, Caption: "the bank's letter"})
	mustPut(t, e, newULID(), photo.ID, api.RoleCopy, smallJPEG(t, 1))
	note := mustCreate(t, e, api.CreateMomentRequest{ClientRequestID: "fx-create-note", Kind: api.KindNote, Caption: "call the plumber"})
	var turns []string
	pt, _, err := e.StartTurn(ctx, photo.ID, api.StartTurnRequest{ClientRequestID: "fx-turn-photo", Mode: api.ModePractical})
	if err != nil {
		t.Fatal(err)
	}
	turns = append(turns, pt.ID)
	// A request id used before a job whose turn would derive it...
	mustCreate(t, e, api.CreateMomentRequest{ClientRequestID: "fx-job-b:0", Kind: api.KindNote, Caption: "early"})
	for _, job := range []string{"fx-job-a", "fx-job-b"} {
		jt, _, err := e.StartJob(ctx, photo.ID, job)
		if err != nil {
			t.Fatal(err)
		}
		for _, t := range jt {
			turns = append(turns, t.ID)
		}
	}
	// ... and one used after.
	mustCreate(t, e, api.CreateMomentRequest{ClientRequestID: "fx-job-a:1", Kind: api.KindNote, Caption: "late"})
	for _, text := range []string{"call the bank", "buy stamps", "water the plants"} {
		if _, _, err := e.KeepPhrase(ctx, api.KeepPhraseRequest{Text: text, MomentID: photo.ID}); err != nil {
			t.Fatal(err)
		}
	}
	_, rt, _, err := e.StartRecall(ctx, "fx-recall")
	if err != nil {
		t.Fatal(err)
	}
	turns = append(turns, rt.ID)
	if _, err := e.DeleteMoment(ctx, note.ID); err != nil {
		t.Fatal(err)
	}
	for _, id := range turns {
		waitTurn(t, e, id)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(out, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
}

// A data directory written by the engine of main before the derived
// request ids passes fsck (its mirror migrated to equal the fold of its
// log), opens, and its request memory answers the derived ids as this
// engine's would: the first producer of each wins.
func TestFixtureV1_OpensWithDerivedRequestIDs(t *testing.T) {
	t.Run("Fsck", func(t *testing.T) {
		dir := copyFixture(t, "main-v1")
		var out bytes.Buffer
		ok, err := Fsck(ctxT(t), dir, &out)
		if err != nil || !ok {
			t.Fatalf("fsck of main's data directory: ok=%v err=%v\n%s", ok, err, out.String())
		}
	})

	dir := copyFixture(t, "main-v1")
	p := pippatest.New(t)
	a, b := p.Config(), p.Config()
	a.Name, b.Name = "first", "second"
	e := openEngine(t, dir, withSeats(a, b))
	ctx := ctxT(t)
	for _, tt := range []struct{ id, kind, turn string }{
		{"fx-job-a", mirror.RequestJob, "fx-job-a:0"},
		{"fx-job-a:0", mirror.RequestJobTurn, "fx-job-a:0"},
		{"fx-job-a:1", mirror.RequestJobTurn, "fx-job-a:1"}, // the later moment create loses it
		{"fx-job-b:0", mirror.RequestMoment, ""},            // the earlier moment create keeps it
		{"fx-job-b:1", mirror.RequestJobTurn, "fx-job-b:1"},
		{"fx-recall", mirror.RequestRecall, "fx-recall:turn"},
		{"fx-recall:turn", mirror.RequestRecallTurn, "fx-recall:turn"},
		{"fx-turn-photo", mirror.RequestTurn, ""},
	} {
		r, err := e.mirror.Request(ctx, tt.id)
		if err != nil || r.Kind != tt.kind || (tt.turn != "" && r.TurnID != tt.turn) {
			t.Errorf("request %s = %+v, %v; want kind %s, turn %s", tt.id, r, err, tt.kind, tt.turn)
		}
	}
	for _, id := range []string{"fx-job-a:0", "fx-job-b:1", "fx-recall:turn"} {
		tu, err := e.Turn(ctx, id)
		if err != nil || tu.ClientRequestID != id {
			t.Errorf("turn %s: client_request_id %q, %v; want %s", id, tu.ClientRequestID, err, id)
		}
	}

	// Repeats answer the same turns and write nothing; the derived ids are
	// taken for any other write.
	before := opCounts(t, e)
	jt, created, err := e.StartJob(ctx, "01M8R0GH3VS9KCGPTR0KJPFPN6", "fx-job-a")
	if err != nil || created || len(jt) != 2 || jt[1].ID != "fx-job-a:1" || jt[1].ClientRequestID != "fx-job-a:1" {
		t.Errorf("repeat of job fx-job-a: %+v created=%v err=%v", jt, created, err)
	}
	_, rt, created, err := e.StartRecall(ctx, "fx-recall")
	if err != nil || created || rt.ID != "fx-recall:turn" {
		t.Errorf("repeat of recall fx-recall: %+v created=%v err=%v", rt, created, err)
	}
	_, _, err = e.StartTurn(ctx, "01M8R0GH3VS9KCGPTR0KJPFPN6", api.StartTurnRequest{ClientRequestID: "fx-job-b:1", Mode: api.ModePractical})
	wantCode(t, err, api.CodeRequestIDReused)
	if diff := cmp.Diff(before, opCounts(t, e)); diff != "" {
		t.Errorf("repeats on main's data wrote ops:\n%s", diff)
	}
	// New writes go on as usual.
	if _, created, err := e.StartJob(ctx, "01M8R0GH3VS9KCGPTR0KJPFPN6", "fx-job-c"); err != nil || !created {
		t.Fatalf("new job on main's data: created=%v err=%v", created, err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}

	// The migrated mirror, and what followed, equals a fold of the log.
	wantMigratedIsFold(t, dir)
}
