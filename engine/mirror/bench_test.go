package mirror

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/oklog/ulid/v2"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/oplog"
)

// BenchmarkApplyCreates folds moment.create ops like those of
// `spark-bench engine` (a note with a caption and a client request id of
// one of 32 clients), in folds of 1 (a lone create, folded before its
// answer) and of 160 (about what the folder takes at once behind 32
// clients); one op is one iteration, so ns/op and allocs/op are per
// create.
func BenchmarkApplyCreates(b *testing.B) {
	for _, per := range []int{1, 160} {
		b.Run(fmt.Sprintf("Fold%d", per), func(b *testing.B) {
			ctx := context.Background()
			// As the engine opens it.
			m, err := Open(ctx, filepath.Join(b.TempDir(), "m.db"), Options{IDIndex: true})
			if err != nil {
				b.Fatal(err)
			}
			defer m.Close()
			var seq uint64
			batch := make([]oplog.Record, 0, per)
			b.ResetTimer()
			for i := 0; i < b.N; {
				batch = batch[:0]
				b.StopTimer()
				for ; len(batch) < per && i < b.N; i++ {
					seq++
					d := &MomentCreate{ID: ulid.Make().String(), Kind: api.KindNote, Caption: fmt.Sprintf("a moment of the bench, number %d", seq)}
					// The request ids of 32 clients, as the bench's: the
					// fold inserts them at 32 places of the table.
					batch = append(batch, rec(b, seq, api.OpMomentCreate, fmt.Sprintf("bench-%d-%d", seq%32, seq/32), d))
				}
				b.StartTimer()
				if err := m.Apply(ctx, batch); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
