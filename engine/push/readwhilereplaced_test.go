package push

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sparkfamily/spark/engine"
	"github.com/sparkfamily/spark/internal/atomicfile"
	"github.com/sparkfamily/spark/internal/atomicfile/atomicfiletest"
)

func TestCheckpoint_ReadWhileReplaced(t *testing.T) {
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	p := &pusher{opts: Options{StateDir: t.TempDir(), Logger: quiet}, stats: Stats{SourceID: "src", TargetID: "dst"}, base: 42}
	p.save(true)
	r := atomicfiletest.ReadWhileReplaced(time.Second, func() error { p.save(true); return nil }, func() error {
		seq, err := p.loadCheckpoint()
		if err == nil && seq != 42 {
			t.Errorf("checkpoint seq %d, want 42", seq)
		}
		return err
	})
	if r.Failed > 0 {
		t.Errorf("%d of %d checkpoint reads failed while it was saved; the first: %v", r.Failed, r.Reads, r.First)
	}
}

func TestSourceID_ReadWhileReplaced(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, engine.IdentityFile)
	b := []byte(`{"version":1,"id":"01JD0000000000000000000000"}` + "\n")
	if err := atomicfile.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	r := atomicfiletest.ReadWhileReplaced(time.Second, func() error { return atomicfile.WriteFile(path, b, 0o600) }, func() error {
		id, err := sourceID(context.Background(), dir, nil)
		if err == nil && id != "01JD0000000000000000000000" {
			t.Errorf("source id %q", id)
		}
		return err
	})
	if r.Failed > 0 {
		t.Errorf("%d of %d reads of the source's id failed while it was replaced; the first: %v", r.Failed, r.Reads, r.First)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
}
