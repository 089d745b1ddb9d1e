package engine

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/internal/benchkit"
)

// BenchmarkSearch_BroadBesideReads is the case of issue 25, item 6: 5,000
// moments with captions of 8 KB, 16 searches at once of 16 one-letter
// prefixes each, and a moment read by id meanwhile. It reports the CPU the
// searches took and the read's latency beside them, against the read alone.
func BenchmarkSearch_BroadBesideReads(b *testing.B) {
	e := openEngine(b, b.TempDir())
	const n = 5_000
	var ids []string
	for i := range n {
		var c strings.Builder
		for k := 0; c.Len() < 8<<10; k++ {
			fmt.Fprintf(&c, "%s%d ", searchWords[(i*7+k*k)%len(searchWords)], (i+k)%97)
		}
		id := newULID()
		ids = append(ids, id)
		if _, _, err := e.CreateMoment(ctxT(b), api.CreateMomentRequest{ID: id, ClientRequestID: "seed:" + id, Kind: api.KindNote, Caption: c.String()}); err != nil {
			b.Fatal(err)
		}
	}
	read := func() time.Duration {
		start := time.Now()
		if _, err := e.Moment(ctxT(b), ids[len(ids)/2]); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	for b.Loop() {
		alone := read()
		cpu0 := benchkit.CPUTime()
		var wg sync.WaitGroup
		var broad atomic.Int64
		for range 16 {
			wg.Go(func() {
				if _, err := e.Search(ctxT(b), "a b c d e f g h i j k l m n o p", 100); api.ErrorCode(err) == api.CodeSearchTooBroad {
					broad.Add(1)
				} else if err != nil {
					b.Error(err)
				}
			})
		}
		time.Sleep(20 * time.Millisecond)
		beside := read()
		wg.Wait()
		b.ReportMetric(float64(alone.Microseconds())/1000, "ms-read-alone")
		b.ReportMetric(float64(beside.Microseconds())/1000, "ms-read-beside")
		b.ReportMetric((benchkit.CPUTime() - cpu0).Seconds(), "cpu-s-16-searches")
		b.ReportMetric(float64(broad.Load()), "too-broad")
	}
}
