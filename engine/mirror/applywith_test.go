package mirror

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
)

func TestApplyWith_CommitsTheCallersRowsWithTheFold(t *testing.T) {
	ctx := context.Background()
	m := openDB(t, filepath.Join(t.TempDir(), "mirror.db"))
	side := func(v string) func(Exec) error {
		return func(exec Exec) error {
			if err := exec("CREATE TABLE IF NOT EXISTS side (k TEXT PRIMARY KEY, v TEXT NOT NULL)"); err != nil {
				return err
			}
			return exec("INSERT INTO side (k, v) VALUES ('x', ?) ON CONFLICT (k) DO UPDATE SET v = excluded.v", v)
		}
	}
	sideValue := func() string {
		var v string
		if err := m.QueryRow(ctx, "SELECT v FROM side WHERE k = 'x'").Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	b := batch(t)
	if err := m.ApplyWith(ctx, b[:3], side("three")); err != nil {
		t.Fatal(err)
	}
	if last, _ := m.LastSeq(ctx); last != 3 || sideValue() != "three" {
		t.Fatalf("after the first batch: last seq %d, side %q; want 3, three", last, sideValue())
	}

	// A failing extra drops the fold too.
	boom := errors.New("boom")
	err := m.ApplyWith(ctx, b[3:], func(exec Exec) error {
		if err := side("six")(exec); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("ApplyWith = %v, want boom", err)
	}
	if last, _ := m.LastSeq(ctx); last != 3 || sideValue() != "three" {
		t.Fatalf("after a failed extra: last seq %d, side %q; want 3, three", last, sideValue())
	}
	if _, err := m.Phrase(ctx, "keep:hi"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("the failed batch's phrase is there: %v", err)
	}

	// A fold that fails (a gap) leaves the side table alone.
	if err := m.ApplyWith(ctx, b[4:], side("gap")); err == nil {
		t.Fatal("a batch with a gap folded")
	}
	if sideValue() != "three" {
		t.Fatalf("a refused batch wrote the side table: %q", sideValue())
	}

	// Nothing new: extra alone runs, the last seq stays.
	if err := m.ApplyWith(ctx, nil, side("alone")); err != nil {
		t.Fatal(err)
	}
	if last, _ := m.LastSeq(ctx); last != 3 || sideValue() != "alone" {
		t.Fatalf("after an empty batch: last seq %d, side %q; want 3, alone", last, sideValue())
	}
	if err := m.ApplyWith(ctx, b[3:], side("six")); err != nil {
		t.Fatal(err)
	}
	if last, _ := m.LastSeq(ctx); last != 6 || sideValue() != "six" {
		t.Fatalf("after the rest: last seq %d, side %q; want 6, six", last, sideValue())
	}
	var copies []LiveCopy
	if err := m.EachLiveCopy(ctx, func(c LiveCopy) error { copies = append(copies, c); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(copies) != 1 || copies[0].MomentID != momentA || copies[0].Media.ID != mediaA {
		t.Errorf("EachLiveCopy = %+v, want the copy %s of %s", copies, mediaA, momentA)
	}
}
