package replica

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/enginetest"
)

// The window's reads answered by the replica are the engine's answers: a
// page of moments with its cursor, one reading, one file's record and a
// search; and a sync names the moments its ops touched.
func TestRead_SameAnswersAsTheEngine(t *testing.T) {
	eng := enginetest.Start(t)
	data := t.TempDir()
	capture(t, eng, data, 5, 300)
	extras(t, eng, "read")
	c := clientOf(eng)
	ctx := ctxT(t)

	r := openReplica(t, filepath.Join(data, "replica"), Options{})
	res, err := r.Sync(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	all, err := r.Moments(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Every moment the log names is touched, the deleted one too.
	if len(res.Moments) != len(all)+1 {
		t.Errorf("first sync touched %d moments, want %d (every live one and the deleted one)", len(res.Moments), len(all)+1)
	}
	for _, m := range all {
		if !slices.Contains(res.Moments, m.ID) {
			t.Errorf("first sync did not name moment %s", m.ID)
		}
	}

	// Pages of 2, as the engine pages them.
	before := ""
	for {
		want, wantNext, err := c.Moments(ctx, 2, before)
		if err != nil {
			t.Fatal(err)
		}
		got, gotNext, err := r.MomentsPage(ctx, 2, before)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Fatalf("page before %q (-engine +replica):\n%s", before, d)
		}
		if (wantNext == nil) != (gotNext == nil) || wantNext != nil && *wantNext != *gotNext {
			t.Fatalf("next after %q: engine %v, replica %v", before, wantNext, gotNext)
		}
		if wantNext == nil {
			break
		}
		before = *wantNext
	}

	var turn api.Turn
	for _, m := range all {
		if len(m.Turns) > 0 {
			turn = m.Turns[0]
		}
		if m.Copy != nil {
			md, err := r.Media(ctx, m.Copy.ID)
			if err != nil || md.SHA256 != m.Copy.SHA256 || md.MomentID != m.ID {
				t.Errorf("Media(%s) = %+v, %v; want the copy of %s", m.Copy.ID, md, err, m.ID)
			}
		}
	}
	want, err := c.Turn(ctx, turn.ID)
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.Turn(ctx, turn.ID)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("turn %s (-engine +replica):\n%s", turn.ID, d)
	}
	if _, err := r.Turn(ctx, "no-such-turn"); err == nil {
		t.Error("Turn(no-such-turn) answered")
	}

	for _, q := range []string{"read", "edited", "bank", "nothing-matches-this"} {
		want, err := c.Search(ctx, q, 10)
		if err != nil {
			t.Fatal(err)
		}
		got, err := r.Search(ctx, q, 10)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("search %q (-engine +replica):\n%s", q, d)
		}
	}

	// A caption edited on the engine: the next sync names that moment only.
	caption := "changed again"
	if _, _, err := c.EditMoment(ctx, all[0].ID, api.EditMomentRequest{Caption: &caption}); err != nil {
		t.Fatal(err)
	}
	res, err = r.Sync(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Moments, []string{all[0].ID}) {
		t.Errorf("sync after an edit touched %v, want [%s]", res.Moments, all[0].ID)
	}
}
