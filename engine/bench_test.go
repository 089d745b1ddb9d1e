package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/sparkfamily/spark/engine/api"
)

// BenchmarkCreateMoment measures creates through the engine (no HTTP),
// each fsync'ed and folded before it returns, from one caller and from
// many concurrent ones; BenchmarkFsync is the disk's raw rate beside it.
func BenchmarkCreateMoment(b *testing.B) {
	b.Run("Callers1", func(b *testing.B) {
		e := openEngine(b, b.TempDir())
		b.ResetTimer()
		for i := range b.N {
			_, _, err := e.CreateMoment(ctxT(b), api.CreateMomentRequest{
				ID: newULID(), ClientRequestID: fmt.Sprintf("bench-%d", i), Kind: api.KindPhoto, Caption: "a moment",
			})
			if err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, par := range []int{16} {
		b.Run(fmt.Sprintf("Callers%d", par*runtime.GOMAXPROCS(0)), func(b *testing.B) {
			e := openEngine(b, b.TempDir())
			var n atomic.Int64
			b.SetParallelism(par)
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					i := n.Add(1)
					_, _, err := e.CreateMoment(ctxT(b), api.CreateMomentRequest{
						ID: newULID(), ClientRequestID: fmt.Sprintf("bench-%d", i), Kind: api.KindPhoto, Caption: "a moment",
					})
					if err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}

// BenchmarkFsync is one small write and fsync, the ceiling of one caller's
// creates.
func BenchmarkFsync(b *testing.B) {
	f, err := os.Create(filepath.Join(b.TempDir(), "f"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	rec := make([]byte, 200)
	b.ResetTimer()
	for range b.N {
		if _, err := f.Write(rec); err != nil {
			b.Fatal(err)
		}
		if err := f.Sync(); err != nil {
			b.Fatal(err)
		}
	}
}
