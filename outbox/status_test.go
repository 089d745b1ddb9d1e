package outbox

import (
	"context"
	"sync"
	"testing"

	"github.com/oklog/ulid/v2"
)

// TestStatus_OneInstant: Status's counts and its lists of unsent photos and
// writes are read in one transaction, so they agree at every instant,
// however fast writes come and go meanwhile. (Read as two queries, as the
// counts and the lists were before, a write added or discarded between
// them makes them disagree.)
func TestStatus_OneInstant(t *testing.T) {
	ctx := context.Background()
	o := openTest(t, "", testOptions())
	mustCapture(t, o, writePhoto(t, t.TempDir(), "a.jpg", 1))
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			w, err := o.AddWrite(ctx, NewCaption(ulid.Make().String(), "x", nil))
			if err != nil {
				t.Error(err)
				return
			}
			if _, err := o.AddWrite(ctx, NewNote(ulid.Make().String(), "n")); err != nil {
				t.Error(err)
				return
			}
			if _, err := o.Discard(ctx, w.ID, ""); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for range 300 {
		st, err := o.Status(ctx)
		if err != nil {
			t.Fatal(err)
		}
		listed := map[Kind]int{}
		for _, e := range st.Photos {
			listed[KindPhoto]++
			if e.State == Done {
				t.Errorf("a delivered photo listed as unsent")
			}
		}
		for _, w := range st.Writes {
			listed[w.Kind]++
		}
		for k, c := range st.Counts {
			if c.Pending+c.Parked != listed[k] {
				t.Fatalf("status: %d %s waiting or parked, %d listed", c.Pending+c.Parked, k, listed[k])
			}
		}
		for k, n := range listed {
			if c := st.Counts[k]; c.Pending+c.Parked != n {
				t.Fatalf("status: %d %s listed, %d counted", n, k, c.Pending+c.Parked)
			}
		}
	}
	close(stop)
	wg.Wait()
}
