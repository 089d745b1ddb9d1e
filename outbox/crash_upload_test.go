package outbox

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/client"
	"github.com/sparkfamily/spark/engine/enginetest"
)

// stallBody passes a request body through until after bytes, then tells
// reached and waits for cut, after which the body fails: the sender is
// gone in the middle of it.
type stallBody struct {
	r       io.ReadCloser
	after   int64
	n       int64
	reached func()
	cut     <-chan struct{}
}

var errSenderGone = errors.New("the sender is gone")

func (b *stallBody) Read(p []byte) (int, error) {
	if b.n >= b.after {
		b.reached()
		<-b.cut
		return 0, errSenderGone
	}
	p = p[:min(int64(len(p)), b.after-b.n)]
	n, err := b.r.Read(p)
	b.n += int64(n)
	return n, err
}

func (b *stallBody) Close() error { return b.r.Close() }

// TestCrash_DrainMidOriginal: the drain's process is SIGKILLed in the
// middle of a large original's second part. Reopened, the outbox shows the
// bytes the engine had acknowledged (its database); the next try asks the
// engine for its offset and sends only the rest, and the photo is
// delivered exactly once.
func TestCrash_DrainMidOriginal(t *testing.T) {
	eng := enginetest.Start(t)
	dir := t.TempDir()
	path := writeBigPhoto(t, t.TempDir(), "big.jpg", 41, 12<<20)
	o, err := Open(context.Background(), dir, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	e := mustCapture(t, o, path)[0].Entry
	o.Close()
	const into = 5<<20/2 + 4321 // bytes of the second part let through
	if e.Size <= client.PartSize+into {
		t.Fatalf("the original (%d bytes) must have a second part of more than %d bytes", e.Size, into)
	}
	reached := make(chan struct{})
	cut := make(chan struct{})
	var reachedOnce, cutOnce sync.Once
	free := func() { cutOnce.Do(func() { close(cut) }) }
	defer free()
	var restarted atomic.Bool
	var sentAfter atomic.Int64 // bytes of the original offered after the restart
	px := newFaultProxy(t, eng.URL, func(r *http.Request) fault {
		if r.URL.Path != api.UploadsPath+e.OriginalID || r.Method != http.MethodPatch {
			return fault{}
		}
		if restarted.Load() {
			sentAfter.Add(r.ContentLength)
			return fault{}
		}
		if off, _ := strconv.ParseInt(r.Header.Get("Upload-Offset"), 10, 64); off >= client.PartSize {
			r.Body = &stallBody{r: r.Body, after: into, cut: cut, reached: func() { reachedOnce.Do(func() { close(reached) }) }}
		}
		return fault{}
	})

	cmd := startHelper(t, "drain", "OUTBOX_DIR="+dir, "OUTBOX_URL="+px.URL(), "OUTBOX_TOKEN="+eng.Token)
	select {
	case <-reached:
	case <-time.After(60 * time.Second):
		kill(t, cmd)
		t.Fatal("the original's second part never came")
	}
	kill(t, cmd)
	free() // the proxy's copy of the part ends too: the engine keeps what came

	o = openTest(t, dir, testOptions())
	got, err := o.Entry(context.Background(), e.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := Sending{Step: StepOriginal, SentBytes: client.PartSize, Size: e.Size}
	if got.State != Pending || got.StepsDone != 3 || got.Sending == nil || *got.Sending != want {
		t.Fatalf("after the kill the outbox holds %s, %d steps done, sending %+v; want pending, 3 steps, sending %+v", got.State, got.StepsDone, got.Sending, want)
	}
	// What the engine holds once the cut part is in (the proxy ended it).
	var held int64
	waitFor(t, 30*time.Second, "the engine to hold the cut part", func() bool {
		st, err := eng.Engine.UploadOffset(context.Background(), e.OriginalID)
		held = st.Offset
		return err == nil && held > client.PartSize
	})
	restarted.Store(true)
	o.SetTarget(Target{URL: px.URL(), Token: eng.Token})
	startDrain(t, o)
	if c := settle(t, o, 60*time.Second); c != (Counts{Done: 1}) {
		t.Fatalf("counts = %+v, want the photo delivered", c)
	}
	t.Logf("killed with %d bytes of a %d-byte original held by the engine; %d sent after the restart", held, e.Size, sentAfter.Load())
	if n := sentAfter.Load(); n != e.Size-held || n >= e.Size {
		t.Errorf("%d bytes of the original were sent after the restart; want the %d the engine did not hold", n, e.Size-held)
	}
	checkDelivered(t, eng, []Entry{*e})
	if b, err := os.ReadFile(path); err != nil || !bytes.Equal(eng.Media(t, e.OriginalID), b) {
		t.Fatalf("the original did not arrive whole (%v)", err)
	}
	for op, n := range map[string]int{api.OpMomentCreate: 1, api.OpMediaPut: 2, api.OpTurnStart: 1} {
		if got := eng.OpCount(t, op); got != n {
			t.Errorf("%d %s ops, want %d", got, op, n)
		}
	}
	if ents := entries(t, o); ents[0].Sending != nil {
		t.Errorf("a delivered entry still sending %+v", ents[0].Sending)
	}
}
