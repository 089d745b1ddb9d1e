package engine

import (
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/sparkfamily/spark/api"
)

// BenchmarkCreateMoment measures creates through the engine (no HTTP),
// each fsync'ed and folded before it returns, from concurrent callers.
func BenchmarkCreateMoment(b *testing.B) {
	for _, par := range []int{1, 32} {
		b.Run(fmt.Sprintf("Callers%d", par), func(b *testing.B) {
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
