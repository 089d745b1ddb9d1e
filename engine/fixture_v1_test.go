package engine

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/sparkfamily/spark/api"
	"github.com/sparkfamily/spark/engine/pippa/pippatest"
)

// fixtureV1 is a data directory (op log, mirror, media) written by the
// engine of main before the derived request ids of jobs and quick recalls
// (mirror schema version 1): there, a job's turns and a recall's turn
// carried the job or recall id itself as their request id. Tests copy it
// aside and open it with today's engine.
var fixtureV1 = filepath.Join("testdata", "main-v1")

// TestWriteFixtureV1 wrote fixtureV1 with the engine of that main. It runs
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
