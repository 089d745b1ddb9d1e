package engine

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/sparkfamily/spark/engine/api"
)

// searchWords make the benchmark's captions differ as the window test's
// seeded ones do (e2e/harness): two words each, "zanzibar" in one moment in
// a thousand.
var searchWords = strings.Fields("letter bank pharmacy label garden kitchen recipe invoice parcel ticket " +
	"doctor appointment birthday card postcard receipt warranty manual timetable menu " +
	"seeds tomato roses bicycle window door cup teapot stamp envelope")

// BenchmarkSearch measures GET /v1/search's engine side over 10,000
// captioned moments: a rare word, a common one, and a word in every
// moment (the broadest answer: 100 moments of 10,000).
func BenchmarkSearch(b *testing.B) {
	e := openEngine(b, b.TempDir())
	const n = 10_000
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += 8 {
				c := fmt.Sprintf("Seeded moment %d: %s and %s", i, searchWords[i%len(searchWords)], searchWords[(i*7+3)%len(searchWords)])
				if i%1000 == 999 {
					c += " from Zanzibar"
				}
				id := newULID()
				if _, _, err := e.CreateMoment(ctxT(b), api.CreateMomentRequest{ID: id, ClientRequestID: "seed:" + id, Kind: api.KindPhoto, Caption: c}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		b.Fatal(err)
	}
	for _, q := range []string{"zanzibar", "letter", "seeded moment"} {
		b.Run(strings.ReplaceAll(q, " ", "_"), func(b *testing.B) {
			for range b.N {
				if _, err := e.Search(ctxT(b), q, 100); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
