package engine

import (
	"context"
	"testing"
	"time"
)

// TestFoldMark: a wait ends when the mark reaches its seq, not before, and
// ends early when its context does.
func TestFoldMark(t *testing.T) {
	var f foldMark
	f.set(3)
	done := make(chan struct{})
	go func() {
		f.wait(context.Background(), 5, func() bool { return false })
		close(done)
	}()
	f.set(4)
	select {
	case <-done:
		t.Fatal("the wait for seq 5 ended at seq 4")
	case <-time.After(50 * time.Millisecond):
	}
	f.set(5)
	select {
	case <-done:
	case <-time.After(maxFoldWait / 2):
		t.Fatal("the wait for seq 5 did not end at seq 5")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	f.wait(ctx, 100, func() bool { return false })
	if d := time.Since(start); d > time.Second {
		t.Errorf("a cancelled wait took %v", d)
	}
}

// TestFoldMark_FollowsTheLog: after writes and after a reopen the mark
// stands at the log's last seq, so reads do not wait for nothing.
func TestFoldMark_FollowsTheLog(t *testing.T) {
	dir := t.TempDir()
	e := openEngine(t, dir)
	photoMoment(t, e, "")
	if got, want := e.folded.seq, e.log.LastSeq(); got != want || want == 0 {
		t.Errorf("after writes the mark is %d, the log's last seq %d", got, want)
	}
	last := e.log.LastSeq()
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e2 := openEngine(t, dir)
	if e2.folded.seq != last {
		t.Errorf("after a reopen the mark is %d, want %d", e2.folded.seq, last)
	}
	start := time.Now()
	if _, err := e2.Phrases(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > maxFoldWait/2 {
		t.Errorf("a read took %v: it waited for a fold that had happened", d)
	}
}
