package oplog

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// TestLog_CancelsUnderLoad has writers append with contexts that end at
// all sorts of moments: before the call, while they wait for the
// committer, while their batch is written. Every Append must come back,
// and the log must hold exactly the records of the Appends that succeeded,
// each once.
func TestLog_CancelsUnderLoad(t *testing.T) {
	const writers, each = 16, 25
	opts := testOptions(t)
	opts.Stage = foldWith(func(b []Record) error {
		if b[0].Seq%7 == 0 {
			// Now and then a slow fold, so that writers queue up.
			time.Sleep(300 * time.Microsecond)
		}
		return nil
	})
	path := filepath.Join(t.TempDir(), "ops.log")
	l := openLog(t, path, opts)
	var (
		mu   sync.Mutex
		okID = map[string]bool{}
		wg   sync.WaitGroup
		errs = make(chan error, writers)
	)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				id := fmt.Sprintf("w%d-%d", w, i)
				ctx, cancel := context.WithTimeout(context.Background(), time.Duration((w*each+i)%5)*100*time.Microsecond)
				got, err := l.Append(ctx, rec("op", id, ""))
				cancel()
				switch {
				case err == nil:
					if len(got) != 1 || got[0].RequestID != id {
						errs <- fmt.Errorf("Append(%s) returned %+v", id, got)
						return
					}
					mu.Lock()
					okID[id] = true
					mu.Unlock()
				case errors.Is(err, context.DeadlineExceeded):
				default:
					errs <- fmt.Errorf("Append(%s): %w", id, err)
					return
				}
			}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("writers still waiting after 30s")
	}
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, r := range scanAll(t, l, 0) {
		seen[r.RequestID]++
	}
	for id, n := range seen {
		if n != 1 || !okID[id] {
			t.Errorf("record %s is in the log %d time(s), answered ok: %v", id, n, okID[id])
		}
	}
	for id := range okID {
		if seen[id] != 1 {
			t.Errorf("Append(%s) succeeded but the log holds it %d time(s)", id, seen[id])
		}
	}
	t.Logf("%d of %d appends succeeded", len(okID), writers*each)
	// The log still takes writes, and Close ends.
	if _, err := l.Append(context.Background(), rec("last", "", "")); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Append(context.Background(), rec("after", "", "")); !errors.Is(err, ErrClosed) {
		t.Errorf("Append after Close = %v, want ErrClosed", err)
	}
}
