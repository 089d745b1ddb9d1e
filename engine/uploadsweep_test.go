package engine

import (
	"crypto/sha256"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/media"
)

// TestSweepUploads_LeavesHeld: the sweep leaves a stale upload that a
// request holds (its bytes may be arriving, or it is being created), and
// removes it once no request does.
func TestSweepUploads_LeavesHeld(t *testing.T) {
	var mu sync.Mutex
	now := time.Now()
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	e := openEngine(t, t.TempDir(), func(c *Config) { c.Now = clock })
	ctx := ctxT(t)
	mo := mustCreate(t, e, api.CreateMomentRequest{Kind: api.KindPhoto})
	data := []byte("ten bytes!")
	sum := sha256.Sum256(data)
	id := newULID()
	if _, err := e.CreateUpload(ctx, CreateUpload{ID: id, MomentID: mo.ID, Role: api.RoleOriginal, Length: int64(len(data)), Digest: sum[:], Size: 0}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	now = now.Add(UploadMaxAge + time.Minute)
	mu.Unlock()

	release, ok := e.uploads.acquire(id, "", nil)
	if !ok {
		t.Fatal("the upload is held by no one, yet could not be taken")
	}
	e.sweepUploads(ctx)
	if _, err := e.media.LoadUpload(id); err != nil {
		t.Fatalf("the sweep removed an upload a request holds: %v", err)
	}
	release()
	e.sweepUploads(ctx)
	if _, err := e.media.LoadUpload(id); !errors.Is(err, media.ErrNoUpload) {
		t.Fatalf("a stale upload no one holds is left after a sweep: %v", err)
	}
}
