package engine

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/sparkfamily/spark/engine/api"
)

// testdata/main-v6 is a data directory (op log, mirror of schema version
// 6) written by the engine of main at commit d4ebb07, before edits carried
// their base: three notes of dad-laptop (member dad), two captions edited,
// the third deleted, restored and deleted again (see testdata/README.md).

// Main's data opens with its mirror migrated to version 7, equal to a
// rebuild; captions written from the same base on two computers then keep
// both; an edit of main's deleted note brings it back.
func TestFixtureV6_Alternatives(t *testing.T) {
	dir := copyFixture(t, "main-v6")
	var out strings.Builder
	if ok, err := Fsck(ctxT(t), dir, &out); err != nil || !ok {
		t.Fatalf("fsck of main's data = %v, %v:\n%s", ok, err, out.String())
	}
	e := openEngine(t, dir)
	ctx := ctxT(t)
	a, err := e.Moment(ctx, "01KBV0000000000000000000A1")
	if err != nil || a.Caption != "water bill, paid" || len(a.Alternatives) != 0 {
		t.Fatalf("main's edited note: %+v, %v", a, err)
	}
	desktop := WithActor(ctx, Actor{Name: "dad-desktop", Member: "dad"})
	laptop := WithActor(ctx, Actor{Name: "dad-laptop", Member: "dad"})
	edit := func(ctx context.Context, id, base, caption, reqID string) *api.Moment {
		t.Helper()
		written := time.Date(2026, 12, 7, 9, 59, 0, 0, time.UTC)
		mo, _, err := e.EditMoment(ctx, id, api.EditMomentRequest{Caption: &caption, BaseCaption: &base, WrittenAt: &written, ClientRequestID: reqID})
		if err != nil {
			t.Fatal(err)
		}
		return mo
	}
	edit(desktop, a.ID, "water bill, paid", "water bill, paid in March", "desk-1")
	// Different words: merged.
	if mo := edit(laptop, a.ID, "water bill, paid", "gas bill, paid", "lap-1"); mo.Caption != "gas bill, paid in March" || len(mo.Alternatives) != 0 {
		t.Fatalf("two edits of different words = %q, %+v; want them merged", mo.Caption, mo.Alternatives)
	}
	// The same words: the later one is the caption, the other kept.
	mo := edit(desktop, a.ID, "water bill, paid", "electricity", "desk-2")
	if mo.Caption != "electricity" || len(mo.Alternatives) != 1 || mo.Alternatives[0].Caption != "gas bill, paid in March" ||
		mo.Alternatives[0].WrittenBy != "dad-laptop" || mo.Alternatives[0].WrittenAt == nil {
		t.Fatalf("a conflicting edit = %q, %+v; want the earlier kept as an alternative, written on dad-laptop", mo.Caption, mo.Alternatives)
	}
	c, restored, err := e.EditMoment(laptop, "01KBV0000000000000000000C1", api.EditMomentRequest{Caption: ptr("not gone")})
	if err != nil || !restored || c.DeletedAt != nil {
		t.Fatalf("an edit of main's deleted note = %+v, restored %v, %v; want it back", c, restored, err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	wantMigratedIsFold(t, dir)
}

func ptr[T any](v T) *T { return &v }
