package engine

import (
	"testing"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/mirror"
)

// testdata/main-v3 is a data directory (op log and mirror of schema
// version 3) written by the engine of main before ops had authors and
// moments owners (see testdata/README.md).

// Main's data opens with its mirror migrated: what it holds was written by
// tokens that were all admin, so it has no owner, and only an admin may
// change it; its ops have no author; new writes name theirs, and the
// owners they make survive a rebuild of the mirror from the log.
func TestFixtureV3_OwnersAndAuthors(t *testing.T) {
	dir := copyFixture(t, "main-v3")
	e := openEngine(t, dir)
	ctx := ctxT(t)
	dad := WithActor(ctx, Actor{Name: "dad"})
	admin := WithActor(ctx, Actor{Name: "me", Admin: true})
	const a, b = "01KBF00000000000000000000A", "01KBF00000000000000000000B"

	ops, _, err := e.Ops(ctx, 0, 0)
	if err != nil || len(ops) != 9 {
		t.Fatalf("main's log: %d ops, %v; want 9", len(ops), err)
	}
	for _, op := range ops {
		if op.Author != "" {
			t.Errorf("op %d of main's log has the author %q", op.Seq, op.Author)
		}
	}

	caption := "changed"
	_, _, err = e.EditMoment(dad, a, api.EditMomentRequest{Caption: &caption})
	wantCode(t, err, api.CodeForbidden)
	_, err = e.DeleteMoment(dad, b)
	wantCode(t, err, api.CodeForbidden)
	if _, _, err := e.EditMoment(admin, a, api.EditMomentRequest{Caption: &caption}); err != nil {
		t.Fatalf("an admin's edit of main's moment: %v", err)
	}
	// A repeat of main's job answers anyone: its maker is not known.
	if turns, created, err := e.StartJob(dad, b, "v3-job"); err != nil || created || len(turns) != 1 || turns[0].ID != "v3-job:0" {
		t.Fatalf("repeat of main's job: %+v created=%v err=%v", turns, created, err)
	}

	// New writes name their author, and their owners survive a rebuild.
	mine, _, err := e.CreateMoment(dad, api.CreateMomentRequest{Kind: api.KindNote, Caption: "dad's"})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.ImportTurn(dad, api.ImportTurnRequest{ID: "dad-job:0", MomentID: mine.ID, Mode: api.ModeCareful, Job: "dad-job",
		Status: api.TurnFinished, Text: "fine"}); err != nil {
		t.Fatal(err)
	}
	ops, _, err = e.Ops(ctx, 9, 0)
	if err != nil {
		t.Fatal(err)
	}
	authors := map[string]bool{}
	for _, op := range ops {
		authors[op.Op+" "+op.Author] = true
	}
	for _, want := range []string{"moment.edit me", "moment.create dad", "turn.start dad", "turn.finish dad"} {
		if !authors[want] {
			t.Errorf("ops after main's: %v; want %q", authors, want)
		}
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	wantMigratedIsFold(t, dir)

	e2 := openEngine(t, dir)
	kid := WithActor(ctxT(t), Actor{Name: "kid"})
	_, _, err = e2.EditMoment(kid, mine.ID, api.EditMomentRequest{Caption: &caption})
	wantCode(t, err, api.CodeForbidden)
	if _, _, err := e2.EditMoment(WithActor(ctxT(t), Actor{Name: "dad"}), mine.ID, api.EditMomentRequest{Caption: &caption}); err != nil {
		t.Fatalf("dad's edit of his moment after a rebuild: %v", err)
	}
	r, err := e2.mirror.Request(ctxT(t), "dad-job")
	if err != nil || r.Kind != mirror.RequestJob || r.Owner != "dad" {
		t.Errorf("job dad-job after a rebuild: %+v, %v; want dad's", r, err)
	}
}
