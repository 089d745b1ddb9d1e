package push

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sparkfamily/spark/internal/atomicfile/atomicfiletest"
	"github.com/sparkfamily/spark/internal/dirlock"
)

// TestCheckpoint_SweepsTempFiles: the temp files that saves of a
// checkpoint cut short by a kill left in the state folder are gone once a
// push between the same engines reads its checkpoint again, which reads as
// before. Names that only look alike, and other checkpoints' temp files,
// are kept. While another push holds the state folder's lock (saving, its
// temp file looking like a leftover), nothing is removed.
func TestCheckpoint_SweepsTempFiles(t *testing.T) {
	const src, dst = "01JD0000000000000000000000", "01JD1111111111111111111111"
	state := t.TempDir()
	p := &pusher{opts: Options{StateDir: state, Logger: quietLog}, stats: Stats{SourceID: src, TargetID: dst}, base: 42}
	p.save(true)
	name := checkpointName(src, dst)
	leftovers := []string{"." + name + ".tmp123", "." + name + ".tmp4294967295"}
	kept := []string{"." + name + ".tmp", "." + name + ".tmp1.bak", name + ".tmp5", "." + checkpointName(dst, src) + ".tmp7"}
	for _, f := range append(leftovers, kept...) {
		if err := os.WriteFile(filepath.Join(state, f), []byte(`{"vers`), 0o600); err != nil {
			t.Fatal(err)
		}
	}

	// Another push between the same engines, saving at this moment.
	held, err := dirlock.TryLock(state, stateLockFile, "saving a checkpoint")
	if err != nil {
		t.Fatal(err)
	}
	again := &pusher{opts: Options{StateDir: state, Logger: quietLog}, stats: Stats{SourceID: src, TargetID: dst}}
	if seq, err := again.loadCheckpoint(); err != nil || seq != 42 {
		t.Fatalf("loadCheckpoint() beside another push = %d, %v; want 42", seq, err)
	}
	for _, f := range leftovers {
		if _, err := os.Stat(filepath.Join(state, f)); err != nil {
			t.Errorf("%s was removed while another push held the state folder (%v)", f, err)
		}
	}
	held.Release()

	if seq, err := again.loadCheckpoint(); err != nil || seq != 42 {
		t.Fatalf("loadCheckpoint() = %d, %v; want 42", seq, err)
	}
	for _, f := range leftovers {
		if _, err := os.Stat(filepath.Join(state, f)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s is still there after the checkpoint was read (%v); want it removed", f, err)
		}
	}
	for _, f := range kept {
		if _, err := os.Stat(filepath.Join(state, f)); err != nil {
			t.Errorf("%s was removed (%v); want it kept", f, err)
		}
	}
}

// TestCheckpoint_SweepsMissingStateDir: a state folder not made yet (the
// first push) has nothing to sweep, and is not made by reading.
func TestCheckpoint_SweepsMissingStateDir(t *testing.T) {
	state := filepath.Join(t.TempDir(), "push")
	p := &pusher{opts: Options{StateDir: state, Logger: quietLog}, stats: Stats{SourceID: "src", TargetID: "dst"}}
	if seq, err := p.loadCheckpoint(); err != nil || seq != 0 {
		t.Fatalf("loadCheckpoint() = %d, %v; want 0", seq, err)
	}
	if _, err := os.Stat(state); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("reading a checkpoint made the state folder (%v)", err)
	}
}

// TestCheckpoint_SweepBesideSaves: two pushes between the same engines at
// once (the app's Move and a spark-engine push): one starts over and over
// (reading the checkpoint, which sweeps) while the other saves over and
// over. No save fails, since no sweep removes the temp file of a save in
// progress.
func TestCheckpoint_SweepBesideSaves(t *testing.T) {
	state := t.TempDir()
	var warned atomic.Int64
	var first atomic.Value
	saver := &pusher{opts: Options{StateDir: state, Logger: slog.New(countingHandler{&warned, &first})},
		stats: Stats{SourceID: "src", TargetID: "dst"}, base: 7}
	saver.save(true)
	r := atomicfiletest.ReadWhileReplaced(time.Second, func() error { saver.save(true); return nil }, func() error {
		starter := &pusher{opts: Options{StateDir: state, Logger: quietLog}, stats: Stats{SourceID: "src", TargetID: "dst"}}
		if seq, err := starter.loadCheckpoint(); err != nil || seq != 7 {
			return fmt.Errorf("loadCheckpoint() = %d, %v; want 7", seq, err)
		}
		return nil
	})
	t.Logf("%d saves beside %d reads", r.Writes, r.Reads)
	if r.Failed > 0 {
		t.Errorf("%d of %d reads failed; the first: %v", r.Failed, r.Reads, r.First)
	}
	if n := warned.Load(); n > 0 {
		t.Errorf("%d of %d saves failed beside the sweeps; the first: %v", n, r.Writes, first.Load())
	}
}

// countingHandler counts the warnings logged and keeps the first.
type countingHandler struct {
	n     *atomic.Int64
	first *atomic.Value
}

func (h countingHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelWarn }
func (h countingHandler) Handle(_ context.Context, r slog.Record) error {
	h.n.Add(1)
	msg := r.Message
	r.Attrs(func(a slog.Attr) bool { msg += " " + a.String(); return true })
	h.first.CompareAndSwap(nil, msg)
	return nil
}
func (h countingHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h countingHandler) WithGroup(string) slog.Handler      { return h }

var quietLog = slog.New(slog.DiscardHandler)
