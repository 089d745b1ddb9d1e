package oplog

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// events records, in order, what the committer did.
type events struct {
	mu  sync.Mutex
	got []string
}

func (e *events) add(s string) {
	e.mu.Lock()
	e.got = append(e.got, s)
	e.mu.Unlock()
}

func (e *events) list() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.got...)
}

type stagedFunc struct {
	commit func() error
	abort  func()
}

func (s stagedFunc) Commit() error { return s.commit() }
func (s stagedFunc) Abort()        { s.abort() }

// foldWith makes an Options.Stage that runs fold on each batch and whose
// Commit and Abort do nothing.
func foldWith(fold func([]Record) error) func([]Record) (Staged, error) {
	return func(b []Record) (Staged, error) {
		if err := fold(b); err != nil {
			return nil, err
		}
		return stagedFunc{commit: func() error { return nil }, abort: func() {}}, nil
	}
}

// TestLog_Stage checks the two-phase fold: Stage sees each batch once it is
// written, Commit comes only after the batch's fsync, and the writer is
// answered only after Commit.
func TestLog_Stage(t *testing.T) {
	var ev events
	opts := testOptions(t)
	opts.OnBatch = func(n int, _ time.Duration) { ev.add("fsync") }
	var staged [][]uint64
	opts.Stage = func(b []Record) (Staged, error) {
		var seqs []uint64
		for _, r := range b {
			seqs = append(seqs, r.Seq)
		}
		staged = append(staged, seqs)
		// Give the fsync time to finish first, if it would, so that the
		// order below is Commit's doing, not luck.
		time.Sleep(time.Millisecond)
		ev.add("stage")
		return stagedFunc{
			commit: func() error { ev.add("commit"); return nil },
			abort:  func() { ev.add("abort") },
		}, nil
	}
	l := openLog(t, filepath.Join(t.TempDir(), "ops.log"), opts)
	for i := range 3 {
		got, err := l.Append(context.Background(), rec("a", "", ""), rec("b", "", ""))
		if err != nil {
			t.Fatal(err)
		}
		ev.add("answered")
		if got[0].Seq != uint64(2*i+1) {
			t.Fatalf("Append %d got seq %d, want %d", i, got[0].Seq, 2*i+1)
		}
	}
	want := [][]uint64{{1, 2}, {3, 4}, {5, 6}}
	if diff := cmp.Diff(want, staged); diff != "" {
		t.Errorf("staged batches (-want +got):\n%s", diff)
	}
	// Stage and fsync run side by side, so either may end first; commit
	// must follow both, and the answer must follow the commit.
	got := ev.list()
	for i := 0; i < len(got); i += 4 {
		round := got[i : i+4]
		if !(round[2] == "commit" && round[3] == "answered") {
			t.Fatalf("events %v: each round must end in commit, answered", got)
		}
		if !(round[0] == "stage" && round[1] == "fsync" || round[0] == "fsync" && round[1] == "stage") {
			t.Fatalf("events %v: each round must start with stage and fsync", got)
		}
	}
	if len(got) != 12 {
		t.Fatalf("events %v, want 4 per Append", got)
	}
	if l.LastSeq() != 6 {
		t.Errorf("LastSeq = %d, want 6", l.LastSeq())
	}
}

// TestLog_StageErrors checks that a failed Stage or Commit is answered as a
// failed fold: the writer gets the error and the log refuses later writes,
// while the record stays durable for the reopen to fold.
func TestLog_StageErrors(t *testing.T) {
	boom := errors.New("mirror is broken")
	for _, tc := range []struct {
		name  string
		stage func([]Record) (Staged, error)
	}{
		{"Stage", func([]Record) (Staged, error) { return nil, boom }},
		{"Commit", func([]Record) (Staged, error) {
			return stagedFunc{commit: func() error { return boom }, abort: func() {}}, nil
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := testOptions(t)
			opts.Stage = tc.stage
			path := filepath.Join(t.TempDir(), "ops.log")
			l := openLog(t, path, opts)
			if _, err := l.Append(context.Background(), rec("a", "", "")); !errors.Is(err, boom) {
				t.Fatalf("Append = %v, want the %s error", err, tc.name)
			}
			if _, err := l.Append(context.Background(), rec("b", "", "")); !errors.Is(err, boom) {
				t.Fatalf("Append after a failed %s = %v, want the log to refuse with the first error", tc.name, err)
			}
			if got := l.LastSeq(); got != 0 {
				t.Errorf("LastSeq = %d after a failed %s, want 0", got, tc.name)
			}
			l.Close()
			if got := openLog(t, path, testOptions(t)).LastSeq(); got != 1 {
				t.Errorf("LastSeq after reopen = %d, want 1 (the record is durable)", got)
			}
		})
	}
}

// TestLog_StageOneRecord checks the path of a lone record, which is folded
// after its fsync rather than beside it: fsync, stage, commit, answer.
func TestLog_StageOneRecord(t *testing.T) {
	var ev events
	opts := testOptions(t)
	opts.OnBatch = func(int, time.Duration) { ev.add("fsync") }
	opts.Stage = func(b []Record) (Staged, error) {
		ev.add("stage")
		return stagedFunc{
			commit: func() error { ev.add("commit"); return nil },
			abort:  func() { ev.add("abort") },
		}, nil
	}
	l := openLog(t, filepath.Join(t.TempDir(), "ops.log"), opts)
	for range 2 {
		if _, err := l.Append(context.Background(), rec("a", "", "")); err != nil {
			t.Fatal(err)
		}
		ev.add("answered")
	}
	want := []string{"fsync", "stage", "commit", "answered", "fsync", "stage", "commit", "answered"}
	if diff := cmp.Diff(want, ev.list()); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}
