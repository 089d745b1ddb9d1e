package oplog

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// benchData is the size of a typical moment.create op.
var benchData = json.RawMessage(`{"id":"01JDQ2Z8X5V7K3M9P4R6T8W0YB","kind":"photo","caption":"the letter from the bank","taken_at":"2026-11-30T12:00:00Z"}`)

// BenchmarkAppend measures appends that each wait for their fsync, with one
// writer (one fsync per append) and with many (group commit).
func BenchmarkAppend(b *testing.B) {
	b.Run("writers=1", func(b *testing.B) {
		l := openLog(b, filepath.Join(b.TempDir(), "ops.log"), Options{})
		ctx := context.Background()
		for b.Loop() {
			if _, err := l.Append(ctx, Record{Op: "moment.create", RequestID: "bench", Data: benchData}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("writers=32", func(b *testing.B) {
		var batches int
		l := openLog(b, filepath.Join(b.TempDir(), "ops.log"), Options{OnBatch: func(int, time.Duration) { batches++ }})
		ctx := context.Background()
		b.SetParallelism(32 / max(1, runtime.GOMAXPROCS(0)))
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, err := l.Append(ctx, Record{Op: "moment.create", RequestID: "bench", Data: benchData}); err != nil {
					b.Error(err)
					return
				}
			}
		})
		l.Close()
		if batches > 0 {
			b.ReportMetric(float64(b.N)/float64(batches), "appends/fsync")
		}
	})
}

// BenchmarkWriteFsync is the baseline: one write of a record-sized buffer
// followed by one fsync, with no log around it.
func BenchmarkWriteFsync(b *testing.B) {
	f, err := os.OpenFile(filepath.Join(b.TempDir(), "raw"), os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	r := Record{Seq: 1, At: fixedNow, Op: "moment.create", RequestID: "bench", Data: benchData}
	buf := appendRecord(nil, &r, false)
	for b.Loop() {
		if _, err := f.Write(buf); err != nil {
			b.Fatal(err)
		}
		if err := f.Sync(); err != nil {
			b.Fatal(err)
		}
	}
}
