package mirror

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/oplog"
)

// A moment is never read whole (issue 25, item 3): Moment carries its
// first turns within MomentTurnBytes, and MomentTurns pages on within its
// budget, or gives one turn alone when that turn is larger than the budget
// (as logs written before the caps may hold: 1 MB readings here).
func TestMomentTurnsWithinBudget(t *testing.T) {
	ctx := context.Background()
	m := openDB(t, filepath.Join(t.TempDir(), "mirror.db"))
	recs := []oplog.Record{rec(t, 1, api.OpMomentCreate, "r1", MomentCreate{ID: momentA, Kind: api.KindNote})}
	sizes := []int{100, 200 << 10, 100, 1 << 20, 1 << 20, 100, 100, 300 << 10}
	for i, n := range sizes {
		id := fmt.Sprintf("T%d", i)
		seq := uint64(len(recs) + 1)
		recs = append(recs,
			rec(t, seq, api.OpTurnStart, "req-"+id, TurnStart{ID: id, MomentID: momentA, Mode: api.ModePractical}),
			rec(t, seq+1, api.OpTurnFinish, "", TurnFinish{ID: id, Status: api.TurnFinished, Text: strings.Repeat("x", n)}))
	}
	if err := m.Apply(ctx, recs); err != nil {
		t.Fatal(err)
	}
	mo, err := m.Moment(ctx, momentA)
	if err != nil {
		t.Fatal(err)
	}
	// 100 + 200 KiB + 100 fit in 256 KiB; the 1 MB turn does not.
	if len(mo.Turns) != 3 || mo.TurnsNext == nil || *mo.TurnsNext != "T2" {
		t.Fatalf("Moment: %d turns, next %v; want 3 and T2", len(mo.Turns), mo.TurnsNext)
	}
	const budget = 512 << 10
	var pages [][]string
	after := ""
	for {
		turns, next, err := m.MomentTurns(ctx, momentA, after, 100, budget)
		if err != nil {
			t.Fatal(err)
		}
		size := 0
		var ids []string
		for i := range turns {
			size += TurnSize(&turns[i])
			ids = append(ids, turns[i].ID)
		}
		if size > budget && len(turns) > 1 {
			t.Fatalf("page %v holds %d bytes, past its budget of %d", ids, size, budget)
		}
		pages = append(pages, ids)
		if next == nil {
			break
		}
		after = *next
	}
	if got, want := fmt.Sprint(pages), "[[T0 T1 T2] [T3] [T4] [T5 T6 T7]]"; got != want {
		t.Fatalf("pages %s, want %s", got, want)
	}
	if _, _, err := m.MomentTurns(ctx, momentA, "T99", 10, budget); err != ErrBadCursor {
		t.Fatalf("an unknown cursor: %v, want ErrBadCursor", err)
	}
}
