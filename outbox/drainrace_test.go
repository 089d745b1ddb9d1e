package outbox

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/sparkfamily/spark/engine/client"
	"github.com/sparkfamily/spark/engine/enginetest"
)

// TestDrain_WriteRetriedWhenDueDuringSchedule: a write that fails again
// and again with a back-off of about a millisecond is always tried again
// soon. The drain once took "now" after starting the writer, so a write
// the writer found not yet due could be due by the time the drain looked
// for its next wake-up, and then waited for nothing but the minute's idle
// tick (seen as TestWrites_ExactlyOnceAcrossRestart timing out under load).
func TestDrain_WriteRetriedWhenDueDuringSchedule(t *testing.T) {
	ctx := context.Background()
	eng := enginetest.Start(t)
	cl := client.New(eng.URL, eng.Token, eng.Client())
	var mu sync.Mutex
	drops := map[string]int{}
	p := newFaultProxy(t, eng.URL, func(r *http.Request) fault {
		if r.Method == http.MethodGet {
			return fault{}
		}
		mu.Lock()
		defer mu.Unlock()
		k := route(r)
		if drops[k] < 40 {
			drops[k]++
			return fault{Kind: dropReply}
		}
		return fault{}
	})
	opts := testOptions()
	opts.BackoffBase, opts.BackoffCap = time.Millisecond, 2*time.Millisecond
	o := openTest(t, "", opts)
	o.SetTarget(Target{URL: p.URL(), Token: eng.Token})
	runDrain(t, o)
	for i := range 5 {
		m := noteOn(t, cl, "a note")
		w, err := o.AddWrite(ctx, NewCaption(m, "caption "+string(rune('a'+i)), nil))
		if err != nil {
			t.Fatal(err)
		}
		waitFor(t, 15*time.Second, "the write to be sent through 40 lost replies", func() bool {
			got, err := o.Write(ctx, w.ID)
			return err == nil && got.State == Done
		})
	}
}
