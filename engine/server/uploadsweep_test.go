package server_test

import (
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/sparkfamily/spark/engine"
	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/enginetest"
)

// TestUploadSweptOnTimer (issue 32, item 9): the bytes of an upload left
// alone past its expiry go while the engine runs, with no other upload
// made and no request about it (they used to stay until another upload
// was created or the engine restarted). One still making progress stays.
func TestUploadSweptOnTimer(t *testing.T) {
	var mu sync.Mutex
	now := time.Now()
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	e := enginetest.Start(t, enginetest.WithoutSeat(), enginetest.WithConfig(func(c *engine.Config) {
		c.Now = clock
		c.UploadSweepEvery = 20 * time.Millisecond
	}))
	m := createMoment(t, e, api.CreateMomentRequest{Kind: api.KindPhoto})
	stale, alive := newID(), newID()
	data := randomBytes(t, 10_000)
	startUpload(t, e, stale, m.ID, randomBytes(t, 10_000), 1000).want(t, http.StatusCreated, nil)
	startUpload(t, e, alive, m.ID, data, 1000).want(t, http.StatusCreated, nil)
	dir := func(id string) string { return filepath.Join(e.Dir, engine.MediaDir, "uploads", id) }

	mu.Lock()
	now = now.Add(engine.UploadMaxAge - time.Hour)
	mu.Unlock()
	appendPart(t, e, alive, 1000, data[1000:2000], false).want(t, http.StatusNoContent, nil)
	mu.Lock()
	now = now.Add(2 * time.Hour) // stale is 25 hours without progress, alive 2
	mu.Unlock()

	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := os.Stat(dir(stale)); os.IsNotExist(err) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the bytes of an upload 25 hours without progress are still on disk 10 s later")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := os.Stat(dir(alive)); err != nil {
		t.Fatalf("the sweep removed an upload with progress 2 hours ago: %v", err)
	}
	wantOffset(t, e, alive, 2000)
}
