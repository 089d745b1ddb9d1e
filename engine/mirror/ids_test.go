package mirror

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/oplog"
)

// TestIDIndex checks that the id index answers like the tables: ids folded
// in this session, ids loaded from the file at Open, and new ids.
func TestIDIndex(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "mirror.db")
	open := func(t *testing.T) *DB {
		t.Helper()
		m, err := Open(ctx, path, Options{IDIndex: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { m.Close() })
		return m
	}
	const momentB = "01J0000000000000000000000C"
	check := func(t *testing.T, m *DB, wantB bool) {
		t.Helper()
		if r, err := m.Request(ctx, "r1"); err != nil || r.MomentID != momentA {
			t.Errorf("Request(r1) = %+v, %v; want moment %s", r, err, momentA)
		}
		if _, err := m.Request(ctx, "t1"); err != nil {
			t.Errorf("Request(t1): %v", err)
		}
		if _, err := m.Moment(ctx, momentA); err != nil {
			t.Errorf("Moment(%s): %v", momentA, err)
		}
		if _, err := m.MomentRefs(ctx, momentA); err != nil {
			t.Errorf("MomentRefs(%s): %v", momentA, err)
		}
		_, errB := m.Moment(ctx, momentB)
		_, errRB := m.Request(ctx, "r2")
		if wantB {
			if errB != nil || errRB != nil {
				t.Errorf("moment %s and request r2: %v, %v; want both found", momentB, errB, errRB)
			}
		} else if !errors.Is(errB, ErrNotFound) || !errors.Is(errRB, ErrNotFound) {
			t.Errorf("moment %s and request r2 before their fold: %v, %v; want ErrNotFound", momentB, errB, errRB)
		}
		if _, err := m.Request(ctx, "never"); !errors.Is(err, ErrNotFound) {
			t.Errorf("Request(never) = %v, want ErrNotFound", err)
		}
		if _, err := m.MomentRefs(ctx, "01J00000000000000000000009"); !errors.Is(err, ErrNotFound) {
			t.Errorf("MomentRefs of an unknown id = %v, want ErrNotFound", err)
		}
	}

	m := open(t)
	if err := m.Apply(ctx, batch(t)); err != nil {
		t.Fatal(err)
	}
	t.Run("Folded", func(t *testing.T) { check(t, m, false) })
	if err := m.Apply(ctx, []oplog.Record{rec(t, 7, api.OpMomentCreate, "r2", MomentCreate{ID: momentB, Kind: api.KindNote})}); err != nil {
		t.Fatal(err)
	}
	t.Run("FoldedLater", func(t *testing.T) { check(t, m, true) })
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	t.Run("LoadedAtOpen", func(t *testing.T) { check(t, open(t), true) })
}

// TestIDIndexHitIsConfirmed checks that an id the index may hold but the
// table does not (a fold that never committed) is still not found.
func TestIDIndexHitIsConfirmed(t *testing.T) {
	ctx := context.Background()
	m, err := Open(ctx, filepath.Join(t.TempDir(), "mirror.db"), Options{IDIndex: true})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	m.ids.add(requestIDs, "ghost")
	m.ids.add(momentIDs, momentA)
	if _, err := m.Request(ctx, "ghost"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Request(ghost) = %v, want ErrNotFound", err)
	}
	if _, err := m.Moment(ctx, momentA); !errors.Is(err, ErrNotFound) {
		t.Errorf("Moment(%s) = %v, want ErrNotFound", momentA, err)
	}
}

// TestIDIndexLearnsRunsOfCreates: the creates of a run, folded by one
// INSERT (as the engine's catch-up at Open folds them, with no Reserve
// before), are in the id index: a repeat of any of them finds its moment.
func TestIDIndexLearnsRunsOfCreates(t *testing.T) {
	ctx := context.Background()
	m, err := Open(ctx, filepath.Join(t.TempDir(), "mirror.db"), Options{IDIndex: true})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	var recs []oplog.Record
	for n := range 5 {
		id := fmt.Sprintf("01J00000000000000000000%03d", n)
		recs = append(recs, rec(t, uint64(n+1), api.OpMomentCreate, fmt.Sprintf("run-%d", n), MomentCreate{ID: id, Kind: api.KindNote}))
	}
	if err := m.Apply(ctx, recs); err != nil {
		t.Fatal(err)
	}
	for n := range 5 {
		id := fmt.Sprintf("01J00000000000000000000%03d", n)
		if r, err := m.Request(ctx, fmt.Sprintf("run-%d", n)); err != nil || r.MomentID != id {
			t.Errorf("Request(run-%d) = %+v, %v; want moment %s", n, r, err, id)
		}
		if _, err := m.Moment(ctx, id); err != nil {
			t.Errorf("Moment(%s): %v", id, err)
		}
	}
}
