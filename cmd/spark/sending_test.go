package main

import (
	"context"
	"crypto/rand"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/sparkfamily/spark/engine/client"
	"github.com/sparkfamily/spark/engine/enginetest"
	"github.com/sparkfamily/spark/internal/faultproxy"
	"github.com/sparkfamily/spark/outbox"
)

// TestOutboxJSON_ShowsBytesTheEngineHolds: a drain stopped while an
// original is on its way (its first part stored by the engine, its second
// held back by a proxy) leaves the bytes the engine holds in the outbox
// database: `spark outbox --json`, another process reading the outbox
// afterwards, shows them as the entry's sending.
func TestOutboxJSON_ShowsBytesTheEngineHolds(t *testing.T) {
	eng := enginetest.Start(t, enginetest.WithoutSeat())
	release := make(chan struct{})
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	defer free()
	held := make(chan struct{}, 1)
	px := faultproxy.New(t, eng.URL, func(r *http.Request) faultproxy.Fault {
		if r.Method == http.MethodPatch && r.Header.Get("Upload-Offset") != "0" {
			select {
			case held <- struct{}{}:
			default:
			}
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}
		return faultproxy.Fault{}
	})
	data, src := t.TempDir(), t.TempDir()
	big := filepath.Join(src, "big.jpg")
	writeJPEG(t, big, 30)
	b, err := os.ReadFile(big)
	if err != nil {
		t.Fatal(err)
	}
	noise := make([]byte, client.PartSize+(1<<20))
	rand.Read(noise)
	if err := os.WriteFile(big, append(b, noise...), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := spark(t, nil, "--data", data, "import", big); code != 0 {
		t.Fatalf("import = %d %s %s", code, out, errOut)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	o, err := outbox.Open(ctx, filepath.Join(data, "outbox"), outbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	o.SetTarget(outbox.Target{URL: px.URL(), Token: eng.Token})
	done := make(chan struct{})
	go func() { defer close(done); o.Run(ctx) }()
	select {
	case <-held:
	case <-time.After(60 * time.Second):
		t.Fatal("the original's second part never came")
	}
	cancel()
	<-done
	o.Close()

	l := outboxJSON(t, data)
	if len(l.Entries) != 1 {
		t.Fatalf("outbox --json lists %d photos, want 1", len(l.Entries))
	}
	e := l.Entries[0]
	want := outbox.Sending{Step: outbox.StepOriginal, SentBytes: client.PartSize, Size: e.Size}
	if e.State != outbox.Pending || e.Sending == nil || *e.Sending != want {
		t.Fatalf("outbox --json: %s, sending %+v; want pending, sending %+v", e.State, e.Sending, want)
	}
	if e.StepsDone != 3 || e.Size != int64(len(b)+len(noise)) {
		t.Fatalf("outbox --json: %d steps done, %d bytes; want 3 and %d", e.StepsDone, e.Size, len(b)+len(noise))
	}
}
