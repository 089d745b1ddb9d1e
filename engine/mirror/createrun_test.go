package mirror

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/oplog"
)

// TestApply_CreateRunsFoldAsOneByOne: a batch of many creates, folded with
// one INSERT per run of them, makes exactly the rows (and the search hits)
// that folding the same ops one at a time makes, through everything that
// ends a run or repeats an id: a repeated moment id, a reused request id, a
// quick recall's create, creates without a request id, another op, more creates than one INSERT holds.
func TestApply_CreateRunsFoldAsOneByOne(t *testing.T) {
	ctx := context.Background()
	var recs []oplog.Record
	add := func(op, rid string, data any) {
		recs = append(recs, rec(t, uint64(len(recs)+1), op, rid, data))
	}
	id := func(n int) string { return fmt.Sprintf("01J00000000000000000%06d", n) }
	for n := range 3*maxCreateRows + 5 {
		add(api.OpMomentCreate, fmt.Sprintf("r%d", n), MomentCreate{ID: id(n), Kind: api.KindNote, Caption: fmt.Sprintf("caption %d milk", n)})
		switch n {
		case 7:
			add(api.OpMomentCreate, "r-again", MomentCreate{ID: id(3), Kind: api.KindNote, Caption: "the same moment id again"})
		case 9:
			add(api.OpMomentCreate, "r2", MomentCreate{ID: id(100000), Kind: api.KindNote, Caption: "a request id used before"})
		case 20:
			add(api.OpPhraseKeep, "", PhraseKeep{ID: "keep:milk", Text: "milk", MomentID: id(20)})
			add(api.OpMomentCreate, "recall-1", MomentCreate{ID: id(200000), Kind: api.KindRecall,
				Recall: &RecallData{ID: "R1", TurnID: "T1", Phrases: []RecallPhrase{{ID: "keep:milk", Text: "milk"}}}})
		case 30:
			add(api.OpMomentEdit, "", MomentEdit{ID: id(30), Caption: new("edited milk")})
		case 40, 41:
			add(api.OpMomentCreate, "", MomentCreate{ID: id(300000 + n), Kind: api.KindPhoto})
		}
	}
	dir := t.TempDir()
	whole := openDB(t, filepath.Join(dir, "whole.db"))
	if err := whole.Apply(ctx, recs); err != nil {
		t.Fatal(err)
	}
	single := openDB(t, filepath.Join(dir, "single.db"))
	for i := range recs {
		if err := single.Apply(ctx, recs[i:i+1]); err != nil {
			t.Fatal(err)
		}
	}
	want, err := single.Dump(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got, err := whole.Dump(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the batch folded whole differs from the ops folded one by one (-one by one +whole):\n%s", diff)
	}
	if n := len(got["moments"]); n != 3*maxCreateRows+5+4 {
		t.Errorf("%d moments, want %d", n, 3*maxCreateRows+5+4)
	}
	for _, q := range []string{"milk", "edited", "caption"} {
		w, err := single.Search(ctx, q, 1000)
		if err != nil {
			t.Fatal(err)
		}
		g, err := whole.Search(ctx, q, 1000)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(w, g); diff != "" || len(g) == 0 {
			t.Errorf("search %q (-one by one +whole, %d hits):\n%s", q, len(g), diff)
		}
	}
}
