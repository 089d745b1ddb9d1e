package oplog

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/sparkfamily/spark/engine/vfs/crashfs"
)

var (
	powerCuts    = flag.Int("powercuts", 300, "power cuts TestLog_PowerCut simulates")
	powerCutSeed = flag.Uint64("powercut-seed", 0, "first seed of TestLog_PowerCut; a failure names the seed that reproduces it")
)

// TestLog_PowerCut runs writers appending groups of records to a log on a
// simulated disk and cuts the power at a random operation; the log that a
// restart finds must open without help and hold every group whose Append
// returned, each group whole or absent, and nothing nobody appended. The
// writers use Append, or AppendDurable, which the log answers at the fsync
// and folds behind it (Options.Stage, as the engine's mirror), so that cuts
// land between an answer and its fold; the restart passes the folded seq
// as KeepThrough, as the engine does. The seeds are fixed, so a failure
// names the seed that reproduces it.
func TestLog_PowerCut(t *testing.T) {
	n := *powerCuts
	if testing.Short() {
		n = 50
	}
	for i := range uint64(n) {
		powerCut(t, *powerCutSeed+i)
	}
}

func powerCut(t *testing.T, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	root := t.TempDir()
	disk, err := crashfs.New(root, seed)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(root, "ops.log")
	// Some writes before the crash point; a few cuts land at the very start.
	disk.CrashAt(1 + rng.IntN(120))
	// The mirror: what the folds committed, in seq order.
	var foldMu sync.Mutex
	var folded uint64
	stage := func(b []Record) (Staged, error) {
		return stagedFunc{
			commit: func() error {
				foldMu.Lock()
				defer foldMu.Unlock()
				if disk.Crashed() {
					// The mirror lost its power too.
					return errors.New("the power is off")
				}
				if b[0].Seq != folded+1 {
					t.Errorf("seed %d: fold of seqs %d-%d after seq %d", seed, b[0].Seq, b[len(b)-1].Seq, folded)
				}
				folded = b[len(b)-1].Seq
				return nil
			},
			abort: func() {},
		}, nil
	}
	l, err := Open(path, Options{FS: disk, Logger: quietLogger, Stage: stage})
	if err != nil {
		if disk.Crashed() {
			return // the power went off while the log was being created
		}
		t.Fatalf("seed %d: Open: %v", seed, err)
	}
	var mu sync.Mutex
	sent := map[string]int{}     // request id -> group size, every Append tried
	answered := map[string]int{} // those that returned success
	var lastAnswered uint64
	// By seed: every writer appends with Append, or with AppendDurable
	// (whose batches wait for their fold while the next ones are written),
	// or half and half.
	durable := func(w int) bool { return seed%3 == 1 || seed%3 == 2 && w%2 == 1 }
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				rid := fmt.Sprintf("w%d-%d", w, i)
				size := 1 + (w+i)%3
				recs := make([]Record, size)
				for j := range recs {
					recs[j] = Record{Op: "moment.create", RequestID: rid, Data: []byte(fmt.Sprintf(`{"part":%d,"of":%d}`, j, size))}
				}
				mu.Lock()
				sent[rid] = size
				mu.Unlock()
				appendFn := l.Append
				if durable(w) {
					appendFn = l.AppendDurable
				}
				out, err := appendFn(context.Background(), recs...)
				if err != nil {
					return
				}
				mu.Lock()
				answered[rid] = size
				lastAnswered = max(lastAnswered, out[len(out)-1].Seq)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	l.Close()
	if !disk.Crashed() {
		t.Fatalf("seed %d: the writers stopped before the power went off", seed)
	}
	img := filepath.Join(t.TempDir(), "after")
	if err := disk.WriteImage(img); err != nil {
		t.Fatal(err)
	}
	after := filepath.Join(img, "ops.log")
	if _, err := os.Stat(after); os.IsNotExist(err) {
		if len(answered) > 0 {
			t.Fatalf("seed %d: the log is gone after the power cut, with %d appends answered", seed, len(answered))
		}
		return
	}
	foldMu.Lock()
	keep := folded
	foldMu.Unlock()
	l2, err := Open(after, Options{Logger: quietLogger, KeepThrough: keep})
	if err != nil {
		t.Fatalf("seed %d: the log does not open after the power cut: %v", seed, err)
	}
	defer l2.Close()
	if testing.Verbose() {
		t.Logf("seed %d: %d ops, %d sent, %d answered through seq %d, folded through %d, last seq %d, cut %+v", seed, disk.Ops(), len(sent), len(answered), lastAnswered, keep, l2.LastSeq(), l2.Cut())
	}
	got := map[string]int{}
	err = l2.Scan(context.Background(), 0, func(r Record) error {
		got[r.RequestID]++
		return nil
	})
	if err != nil {
		t.Fatalf("seed %d: Scan: %v", seed, err)
	}
	for rid, size := range answered {
		if got[rid] != size {
			t.Errorf("seed %d: answered group %s has %d of its %d records after the power cut", seed, rid, got[rid], size)
		}
	}
	for rid, n := range got {
		size, ok := sent[rid]
		if !ok {
			t.Errorf("seed %d: the log holds %s, which nobody appended", seed, rid)
		} else if n != size {
			t.Errorf("seed %d: group %s is half there: %d of %d records", seed, rid, n, size)
		}
	}
	if _, err := l2.Append(context.Background(), Record{Op: "after.restart"}); err != nil {
		t.Errorf("seed %d: Append after the restart: %v", seed, err)
	}
}
