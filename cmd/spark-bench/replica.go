package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/sparkfamily/spark/app/replica"
	"github.com/sparkfamily/spark/engine"
	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/client"
	"github.com/sparkfamily/spark/engine/mirror"
	"github.com/sparkfamily/spark/engine/oplog"
	"github.com/sparkfamily/spark/internal/benchkit"
)

var (
	replicaOps = flag.Int("replica-ops", 100000, "ops in the log the replica benchmark pulls")
)

func init() {
	register("replica", bench{
		help: "replica catch-up: ops/s pulling and folding a large log over loopback, beside the engine's own rebuild, with peak RSS",
		run:  benchReplica,
	})
	registerChild("_replica", childReplicaSync)
}

// writeLog writes n ops of a varied corpus (notes, edits, kept phrases)
// straight into a fresh engine folder's log, 1000 to an fsync.
func writeLog(ctx context.Context, dir string, n int) error {
	l, err := oplog.Open(filepath.Join(dir, engine.LogFile), oplog.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return err
	}
	defer l.Close()
	batch := make([]oplog.Record, 0, 1000)
	add := func(op string, data any) error {
		b, err := json.Marshal(data)
		if err != nil {
			return err
		}
		batch = append(batch, oplog.Record{Op: op, Data: b})
		if len(batch) == cap(batch) {
			if _, err := l.Append(ctx, batch...); err != nil {
				return err
			}
			batch = batch[:0]
		}
		return nil
	}
	for i, written := 0, 0; written < n; i++ {
		id := ulid.Make().String()
		if err := add(api.OpMomentCreate, mirror.MomentCreate{ID: id, Kind: api.KindNote,
			Caption: fmt.Sprintf("a note of the bench, number %d, about as long as a caption Dad writes", i)}); err != nil {
			return err
		}
		written++
		if i%4 == 0 && written < n {
			c := fmt.Sprintf("edited note %d", i)
			if err := add(api.OpMomentEdit, mirror.MomentEdit{ID: id, Caption: &c}); err != nil {
				return err
			}
			written++
		}
		if i%10 == 0 && written < n {
			text := fmt.Sprintf("phrase %d", i)
			pid, err := api.PhraseID(text)
			if err != nil {
				return err
			}
			if err := add(api.OpPhraseKeep, mirror.PhraseKeep{ID: pid, Text: text, MomentID: id}); err != nil {
				return err
			}
			written++
		}
	}
	if len(batch) > 0 {
		if _, err := l.Append(ctx, batch...); err != nil {
			return err
		}
	}
	return nil
}

func benchReplica(ctx context.Context, out io.Writer) error {
	dir, cleanup, err := workDir("replica")
	if err != nil {
		return err
	}
	defer cleanup()
	engDir := filepath.Join(dir, "engine")
	if err := os.MkdirAll(engDir, 0o700); err != nil {
		return err
	}
	n := *replicaOps
	if err := writeLog(ctx, engDir, n); err != nil {
		return fmt.Errorf("write the log: %w", err)
	}
	fmt.Fprintf(out, "replica: catch-up of a %d-op log (notes, edits, kept phrases) over loopback, beside the engine's own rebuild\n", n)
	start, cpu := time.Now(), benchkit.CPUTime()
	if err := engine.Rebuild(ctx, engDir, slog.New(slog.DiscardHandler)); err != nil {
		return err
	}
	rebuild, rebuildCPU := time.Since(start), benchkit.CPUTime()-cpu
	rebuildRate := float64(n) / rebuild.Seconds()
	fmt.Fprintf(out, "  engine rebuild (its own log file, one fold):      %8.0f ops/s  (%.2f s, CPU %.2f s)\n", rebuildRate, rebuild.Seconds(), rebuildCPU.Seconds())

	url, token, stop, err := localEngine(ctx, engDir)
	if err != nil {
		return err
	}
	defer stop()
	var res replicaResult
	if err := runChild(ctx, "_replica", []string{filepath.Join(dir, "replica"), url, token}, &res); err != nil {
		return err
	}
	secs, ops, kb := res.Sync.Seconds(), res.Ops, res.PeakKB
	if ops != n {
		return fmt.Errorf("the replica folded %d ops, want %d", ops, n)
	}
	rate := float64(n) / secs
	verdict := func(ok bool) string {
		if ok {
			return "meets"
		}
		return "MISSES"
	}
	fmt.Fprintf(out, "  replica sync (GET /v1/ops pages, the same fold): %8.0f ops/s  (%.2f s, in a child process; the engine serves it from this one)\n", rate, secs)
	fmt.Fprintf(out, "  replica / rebuild: %.0f%% (goal >= 50%%: %s); replica peak RSS %.0f MB (goal < 150 MB: %s)\n",
		100*rate/rebuildRate, verdict(rate >= rebuildRate/2), float64(kb)/1024, verdict(kb < 150*1024))
	return nil
}

// replicaResult is what the _replica child returns.
type replicaResult struct {
	Sync   time.Duration `json:"sync"`
	Ops    int           `json:"ops"`
	PeakKB int           `json:"peak_kb"`
}

// childReplicaSync syncs a fresh replica from an engine (args: the replica
// folder, the engine's URL and a token), then returns the sync's time, the
// ops folded and its peak RSS in kB.
func childReplicaSync(ctx context.Context, args []string) (any, error) {
	if err := childArgs(args, "REPLICA", "URL", "TOKEN"); err != nil {
		return nil, err
	}
	r, err := replica.Open(ctx, args[0], replica.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return nil, err
	}
	defer r.Close()
	start := time.Now()
	res, err := r.Sync(ctx, client.New(args[1], args[2], nil))
	if err != nil {
		return nil, err
	}
	d := time.Since(start)
	kb, err := peakKB()
	if err != nil {
		return nil, err
	}
	return replicaResult{Sync: d, Ops: res.Ops, PeakKB: kb}, nil
}
