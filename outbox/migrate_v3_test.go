package outbox

import (
	"context"
	"database/sql"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/enginetest"
	"github.com/sparkfamily/spark/engine/media"
)

// TestOpen_MigratesV3ToSendingInTheDatabase opens testdata/outbox-v3, an
// outbox written by the outbox of a1fe58b (schema version 3, one queue;
// gen.go.txt wrote it at that commit) beside the engine it was sending
// to: photos waiting at each of their four steps (the original of one
// half held by the engine, in an upload the old outbox kept no trace
// of), one parked at its original, one delivered; a note and a caption
// waiting, a caption sent. Brought up to version 4, every entry reads as
// it did; the next try of the half-sent original asks the engine, stores
// the bytes it holds in the outbox database (Status reads them there)
// and sends only the rest; every entry goes out exactly once.
func TestOpen_MigratesV3ToSendingInTheDatabase(t *testing.T) {
	ctx := context.Background()
	f := openFixture(t, "outbox-v3", 3)
	var half *Entry
	for i, e := range f.before.Entries {
		if e.Name == "p3-original-half.jpg" {
			half = &f.before.Entries[i]
		}
	}
	if half == nil {
		t.Fatal("the fixture has no half-sent original")
	}
	// The engine's upload was made when the fixture was written: made
	// recent, so that the engine does not remove it as one with no
	// progress for a day.
	statePath := filepath.Join(f.engDir, "media", media.UploadsDir, half.OriginalID, "state.json")
	var up map[string]any
	b, err := os.ReadFile(statePath)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &up); err != nil {
		t.Fatal(err)
	}
	up["updated"] = time.Now().UTC().Format(time.RFC3339Nano)
	if b, err = json.Marshal(up); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(statePath, b, 0o600); err != nil {
		t.Fatal(err)
	}

	m := f.migrate(t, []string{"queue"}, enginetest.WithoutSeat())
	o, eng, before := m.o, m.eng, &f.before
	if v := userVersion(t, filepath.Join(f.dir, "outbox.db")); v != SchemaVersion {
		t.Errorf("user_version = %d; want SchemaVersion, %d", v, SchemaVersion)
	}
	m.checkReadsAsBefore(t, []WriteKind{WriteNote, WriteCaption}, nil)

	// The engine is back. The half-sent original's append is held until
	// the test has read the outbox's Status.
	var sent atomic.Int64
	held := make(chan struct{}, 1)
	release := make(chan struct{})
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	defer free() // before the cleanups, which stop the drain
	px := newFaultProxy(t, eng.URL, func(r *http.Request) fault {
		if r.URL.Path == api.UploadsPath+half.OriginalID && r.Method == http.MethodPatch {
			sent.Add(r.ContentLength)
			select {
			case held <- struct{}{}:
			default:
			}
			<-release
		}
		return fault{}
	})
	db, err := sql.Open("sqlite", filepath.Join(f.dir, "outbox.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// Through the proxy now: the same engine, so the done steps stay done.
	if _, err := db.Exec("UPDATE queue SET target = ? WHERE target = ?", px.URL(), eng.URL); err != nil {
		t.Fatal(err)
	}
	o.SetTarget(Target{URL: px.URL(), Token: eng.Token})
	runDrain(t, o)
	o.Kick()
	select {
	case <-held:
	case <-time.After(30 * time.Second):
		t.Fatal("the half-sent original's append never came")
	}
	want := Sending{Step: StepOriginal, SentBytes: before.Half, Size: half.Size}
	var step string
	var sentBytes, size int64
	if err := db.QueryRow("SELECT sending_step, sending_held, sending_size FROM queue WHERE id = ?", half.ID).Scan(&step, &sentBytes, &size); err != nil {
		t.Fatal(err)
	}
	if (Sending{Step: step, SentBytes: sentBytes, Size: size}) != want {
		t.Errorf("the outbox database holds %s %d of %d for the half-sent original; want %+v", step, sentBytes, size, want)
	}
	st, err := o.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, e := range st.Photos {
		if e.ID == half.ID {
			found = true
			if e.Sending == nil || *e.Sending != want {
				t.Errorf("Status: the half-sent original is sending %+v; want %+v", e.Sending, want)
			}
		}
	}
	if !found {
		t.Error("Status does not list the half-sent original")
	}
	free()
	waitFor(t, 30*time.Second, "everything but the parked to go out", func() bool {
		st, err := o.Status(ctx)
		return err == nil && st.Counts[KindPhoto].Parked == 1 && len(st.Photos) == 1 && len(st.Writes) == 0
	})
	if n, err := o.RetryAll(ctx); err != nil || n[KindPhoto] != 1 {
		t.Fatalf("RetryAll = %v, %v; want 1 photo", n, err)
	}
	// Still to do when the fixture was written: p0's create and the
	// note's; the small copies of p0 and p1 and the originals of p0..p4;
	// the turns of p0, p1, p2 and the note; one caption.
	all := m.checkSentOnce(t, map[string]int{api.OpMomentCreate: 2, api.OpTurnStart: 4, api.OpMomentEdit: 1}, 7)
	if n := sent.Load(); n != half.Size-before.Half {
		t.Errorf("%d bytes of the half-sent original went up after the migration; want the %d the engine did not hold", n, half.Size-before.Half)
	}
	for _, e := range all {
		if e.Sending != nil {
			t.Errorf("photo %s is %s, sending %+v", e.Name, e.State, e.Sending)
		}
	}
}
