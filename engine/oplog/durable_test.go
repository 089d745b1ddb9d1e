package oplog

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestLog_AppendDurable checks the fold behind the log: an AppendDurable
// writer is answered once its batch is fsync'ed, while the fold of an
// earlier batch still runs; Durable hears of the seq before the writer
// does; the folds come in seq order, batches that waited taken together;
// an Append waits for the folds queued before it; Close finishes them.
func TestLog_AppendDurable(t *testing.T) {
	var ev events
	release := make(chan struct{})
	var mu sync.Mutex
	var folded []uint64
	opts := testOptions(t)
	opts.Durable = func(last uint64) { ev.add("durable") }
	opts.Stage = func(b []Record) (Staged, error) {
		<-release
		return stagedFunc{
			commit: func() error {
				mu.Lock()
				for _, r := range b {
					folded = append(folded, r.Seq)
				}
				mu.Unlock()
				ev.add("commit")
				return nil
			},
			abort: func() { t.Error("Abort of a batch already durable") },
		}, nil
	}
	path := filepath.Join(t.TempDir(), "ops.log")
	l := openLog(t, path, opts)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// The fold is held: the writers are answered all the same.
	for i := range 3 {
		got, err := l.AppendDurable(ctx, rec("a", "", ""))
		if err != nil {
			t.Fatalf("AppendDurable %d with the fold held: %v", i, err)
		}
		ev.add("answered")
		if got[0].Seq != uint64(i+1) || l.LastSeq() != uint64(i+1) {
			t.Fatalf("AppendDurable %d: seq %d, LastSeq %d, want %d", i, got[0].Seq, l.LastSeq(), i+1)
		}
	}
	if got, want := ev.list(), []string{"durable", "answered", "durable", "answered", "durable", "answered"}; !slices.Equal(got, want) {
		t.Fatalf("events %v, want %v (answers before any fold, each after Durable)", got, want)
	}
	// An Append waits for the folds before it, then folds its own.
	done := make(chan error, 1)
	go func() {
		_, err := l.Append(ctx, rec("b", "", ""))
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("Append answered (%v) while the folds before it were held", err)
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	got := slices.Clone(folded)
	mu.Unlock()
	if want := []uint64{1, 2, 3, 4}; !slices.Equal(got, want) {
		t.Fatalf("folded seqs %v, want %v", got, want)
	}
	// Close folds what is still queued.
	for range 5 {
		if _, err := l.AppendDurable(ctx, rec("c", "", "")); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if want := []uint64{1, 2, 3, 4, 5, 6, 7, 8, 9}; !slices.Equal(folded, want) {
		t.Fatalf("folded seqs after Close %v, want %v", folded, want)
	}
}

// TestLog_AppendDurableFoldFails checks a fold behind the log that fails:
// its writer was answered (the record is durable, and a reopen finds it),
// and the log refuses every later Append with the fold's error.
func TestLog_AppendDurableFoldFails(t *testing.T) {
	boom := errors.New("mirror is broken")
	opts := testOptions(t)
	opts.Stage = func([]Record) (Staged, error) { return nil, boom }
	path := filepath.Join(t.TempDir(), "ops.log")
	l := openLog(t, path, opts)
	ctx := context.Background()
	if _, err := l.AppendDurable(ctx, rec("a", "", "")); err != nil {
		t.Fatalf("AppendDurable = %v; the record is durable before its fold", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, err := l.AppendDurable(ctx, rec("b", "", ""))
		if errors.Is(err, boom) {
			break
		}
		if err != nil || time.Now().After(deadline) {
			t.Fatalf("AppendDurable after a failed fold = %v, want the fold's error", err)
		}
		time.Sleep(time.Millisecond)
	}
	if _, err := l.Append(ctx, rec("c", "", "")); !errors.Is(err, boom) {
		t.Fatalf("Append after a failed fold = %v, want the fold's error", err)
	}
	last := l.LastSeq()
	l.Close()
	if got := openLog(t, path, testOptions(t)).LastSeq(); got != last || got == 0 {
		t.Errorf("LastSeq after reopen = %d, want %d (every answered record is durable)", got, last)
	}
}

// TestLog_AppendDurableNoStage: without Stage there is nothing to fold
// behind, and AppendDurable is Append.
func TestLog_AppendDurableNoStage(t *testing.T) {
	l := openLog(t, filepath.Join(t.TempDir(), "ops.log"), testOptions(t))
	got, err := l.AppendDurable(context.Background(), rec("a", "", ""), rec("b", "", ""))
	if err != nil || len(got) != 2 || got[1].Seq != 2 {
		t.Fatalf("AppendDurable = %v, %v", got, err)
	}
}

// TestLog_LargeBatchBufferLetGo: the encoding buffer a batch larger than
// maxBatchBytes grew is not kept once the batch is written, whether its
// writer was answered at the fsync (AppendDurable) or after the fold.
func TestLog_LargeBatchBufferLetGo(t *testing.T) {
	big := `{"caption":"` + strings.Repeat("a", maxBatchBytes+1<<20) + `"}`
	for _, durable := range []bool{false, true} {
		opts := testOptions(t)
		opts.Logger = quietLogger
		opts.Stage = func(b []Record) (Staged, error) {
			return stagedFunc{commit: func() error { return nil }, abort: func() {}}, nil
		}
		l, err := Open(filepath.Join(t.TempDir(), "ops.log"), opts)
		if err != nil {
			t.Fatal(err)
		}
		appendFn := l.Append
		if durable {
			appendFn = l.AppendDurable
		}
		if _, err := appendFn(context.Background(), rec("a", "", big)); err != nil {
			t.Fatal(err)
		}
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
		// The committer has stopped: its buffer may be read.
		if c := cap(l.buf); c > maxBatchBytes {
			t.Errorf("durable %v: the committer keeps a buffer of %d bytes after a large batch, more than %d", durable, c, maxBatchBytes)
		}
	}
}
