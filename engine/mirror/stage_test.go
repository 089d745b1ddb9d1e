package mirror

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/oplog"
)

// TestStage checks that a staged fold is invisible to readers until Commit,
// and that Abort leaves the mirror as it was, so that the next batch folds
// from the same seq.
func TestStage(t *testing.T) {
	ctx := context.Background()
	m, err := Open(ctx, filepath.Join(t.TempDir(), "mirror.db"), Options{IDIndex: true})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	create := []oplog.Record{rec(t, 1, api.OpMomentCreate, "r1", MomentCreate{ID: momentA, Kind: api.KindNote})}

	s, err := m.Stage(ctx, create)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Moment(ctx, momentA); !errors.Is(err, ErrNotFound) {
		t.Errorf("Moment before Commit = %v, want ErrNotFound", err)
	}
	if _, err := m.Request(ctx, "r1"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Request before Commit = %v, want ErrNotFound", err)
	}
	s.Abort()
	if last, _ := m.LastSeq(ctx); last != 0 {
		t.Errorf("LastSeq after Abort = %d, want 0", last)
	}
	if _, err := m.Moment(ctx, momentA); !errors.Is(err, ErrNotFound) {
		t.Errorf("Moment after Abort = %v, want ErrNotFound", err)
	}

	s, err = m.Stage(ctx, create)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Moment(ctx, momentA); err != nil {
		t.Errorf("Moment after Commit: %v", err)
	}
	if last, _ := m.LastSeq(ctx); last != 1 {
		t.Errorf("LastSeq after Commit = %d, want 1", last)
	}
	if err := s.Commit(); err == nil {
		t.Error("a second Commit of one staged fold succeeded; want an error")
	}
	// The mirror takes the next fold: Stage released its lock.
	if err := m.Apply(ctx, []oplog.Record{rec(t, 2, api.OpMomentDelete, "", MomentDelete{ID: momentA})}); err != nil {
		t.Fatal(err)
	}
}
