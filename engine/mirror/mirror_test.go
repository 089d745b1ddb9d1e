package mirror

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/oplog"
)

func openDB(tb testing.TB, path string) *DB {
	tb.Helper()
	m, err := Open(context.Background(), path, Options{})
	if err != nil {
		tb.Fatalf("Open(%s): %v", path, err)
	}
	tb.Cleanup(func() { m.Close() })
	return m
}

func rec(tb testing.TB, seq uint64, op, rid string, data any) oplog.Record {
	tb.Helper()
	b, err := json.Marshal(data)
	if err != nil {
		tb.Fatal(err)
	}
	at := time.Date(2026, 6, 1, 12, 0, 0, int(seq), time.UTC)
	return oplog.Record{Seq: seq, At: at, Op: op, RequestID: rid, Data: b}
}

const (
	momentA = "01J0000000000000000000000A"
	mediaA  = "01J0000000000000000000000B"
)

func batch(tb testing.TB) []oplog.Record {
	caption := "edited"
	return []oplog.Record{
		rec(tb, 1, api.OpMomentCreate, "r1", MomentCreate{ID: momentA, Kind: api.KindPhoto, Caption: "first"}),
		rec(tb, 2, api.OpMediaPut, "", MediaPut{ID: mediaA, MomentID: momentA, Role: api.RoleCopy, SHA256: strings.Repeat("ab", 32), Size: 3, ContentType: "image/jpeg"}),
		rec(tb, 3, api.OpTurnStart, "t1", TurnStart{ID: "T1", MomentID: momentA, Mode: api.ModePractical}),
		rec(tb, 4, api.OpTurnFinish, "", TurnFinish{ID: "T1", Status: api.TurnFinished, Seat: "s", Text: "a reading"}),
		rec(tb, 5, api.OpMomentEdit, "", MomentEdit{ID: momentA, Caption: &caption}),
		rec(tb, 6, api.OpPhraseKeep, "", PhraseKeep{ID: "keep:hi", Text: "Hi"}),
	}
}

func TestApply(t *testing.T) {
	ctx := context.Background()
	m := openDB(t, filepath.Join(t.TempDir(), "mirror.db"))
	b := batch(t)
	if err := m.Apply(ctx, b); err != nil {
		t.Fatal(err)
	}
	before, err := m.Dump(ctx)
	if err != nil {
		t.Fatal(err)
	}

	t.Run("AppliedTwiceIsANoOp", func(t *testing.T) {
		if err := m.Apply(ctx, b); err != nil {
			t.Fatal(err)
		}
		after, err := m.Dump(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(before, after); diff != "" {
			t.Errorf("re-applying changed the mirror:\n%s", diff)
		}
	})
	t.Run("Reads", func(t *testing.T) {
		mo, err := m.Moment(ctx, momentA)
		if err != nil {
			t.Fatal(err)
		}
		if mo.Caption != "edited" || !mo.CreatedAt.Equal(b[0].At) || !mo.UpdatedAt.Equal(b[4].At) || mo.Copy == nil || mo.Copy.ID != mediaA {
			t.Errorf("moment = %+v", mo)
		}
		if len(mo.Turns) != 1 || mo.Turns[0].Status != api.TurnFinished || !mo.Turns[0].FinishedAt.Equal(b[3].At) || mo.Turns[0].ClientRequestID != "t1" {
			t.Errorf("turns = %+v", mo.Turns)
		}
		r, err := m.Request(ctx, "t1")
		if err != nil || r.Kind != RequestTurn || r.TurnID != "T1" || r.MomentID != momentA {
			t.Errorf("request t1 = %+v, %v", r, err)
		}
		if last, err := m.LastSeq(ctx); err != nil || last != 6 {
			t.Errorf("LastSeq = %d, %v; want 6", last, err)
		}
		if _, err := m.Moment(ctx, "01J0000000000000000000000Z"); !errors.Is(err, ErrNotFound) {
			t.Errorf("unknown moment: %v, want ErrNotFound", err)
		}
	})
	t.Run("ErrGap", func(t *testing.T) {
		err := m.Apply(ctx, []oplog.Record{rec(t, 8, api.OpPhraseUnkeep, "", PhraseUnkeep{ID: "keep:hi"})})
		if err == nil || !strings.Contains(err.Error(), "does not follow") {
			t.Errorf("Apply with a gap: %v, want refused", err)
		}
	})
	t.Run("ErrUnknownOp", func(t *testing.T) {
		err := m.Apply(ctx, []oplog.Record{rec(t, 7, "moment.explode", "", struct{}{})})
		if err == nil || !strings.Contains(err.Error(), "unknown op") {
			t.Errorf("Apply of an unknown op: %v, want refused", err)
		}
		if last, _ := m.LastSeq(ctx); last != 6 {
			t.Errorf("a failed Apply moved the last seq to %d", last)
		}
	})
}

func TestOpen_ErrStale(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "mirror.db")
	m := openDB(t, path)
	if _, err := m.w.Exec("PRAGMA user_version = 42"); err != nil {
		t.Fatal(err)
	}
	m.Close()
	_, err := Open(context.Background(), path, Options{})
	if !errors.Is(err, ErrStale) || !strings.Contains(err.Error(), "spark-engine rebuild --data "+dir) {
		t.Fatalf("Open of a stale mirror: %v; want ErrStale with the rebuild command", err)
	}
}

func TestDiff(t *testing.T) {
	ctx := context.Background()
	a := openDB(t, filepath.Join(t.TempDir(), "a.db"))
	b := openDB(t, filepath.Join(t.TempDir(), "b.db"))
	full := batch(t)
	if err := a.Apply(ctx, full); err != nil {
		t.Fatal(err)
	}
	if err := b.Apply(ctx, full[:5]); err != nil {
		t.Fatal(err)
	}
	diffs, err := Diff(ctx, a, b, 10)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(diffs, "\n")
	if len(diffs) != 2 || !strings.Contains(got, "meta: row last_seq differs") || !strings.Contains(got, `phrases: only in the first: "keep:hi"`) {
		t.Errorf("diffs = %q", diffs)
	}
	if err := b.Apply(ctx, full); err != nil {
		t.Fatal(err)
	}
	if diffs, err := Diff(ctx, a, b, 10); err != nil || len(diffs) != 0 {
		t.Errorf("diffs of equal mirrors = %q, %v", diffs, err)
	}
}
