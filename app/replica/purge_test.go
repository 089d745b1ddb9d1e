package replica

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/sparkfamily/spark/engine"
	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/client"
	"github.com/sparkfamily/spark/engine/enginetest"
)

// A moment the engine removes for good (30 days after it was deleted)
// leaves this computer at the next sync: its small copy leaves the cache,
// it is in Recently deleted no more, and the replica equals the engine's
// mirror. The other moments' copies stay.
func TestSync_Purged(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2026, 10, 1, 9, 0, 0, 0, time.UTC)
	eng := enginetest.Start(t, enginetest.WithoutSeat(), enginetest.WithConfig(func(c *engine.Config) {
		c.Now = func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
		c.UploadSweepEvery = 20 * time.Millisecond
	}))
	c := clientOf(eng)
	ctx := ctxT(t)
	var ids, shas []string
	for i := range 3 {
		id := ulid.Make().String()
		if _, _, err := c.CreateMoment(ctx, api.CreateMomentRequest{ID: id, Kind: api.KindPhoto, Caption: "photo"}); err != nil {
			t.Fatal(err)
		}
		b := bytes.Repeat([]byte{byte(i), 0xff, 0xd8}, 900)
		sum := sha256.Sum256(b)
		if _, _, err := c.PutMedia(ctx, client.PutMedia{ID: ulid.Make().String(), MomentID: id, Role: api.RoleCopy, ContentType: "image/jpeg",
			Body: bytes.NewReader(b), Size: int64(len(b)), SHA256: sum[:]}); err != nil {
			t.Fatal(err)
		}
		ids, shas = append(ids, id), append(shas, hex.EncodeToString(sum[:]))
	}
	if _, err := c.DeleteMoment(ctx, ids[0]); err != nil {
		t.Fatal(err)
	}
	r := openReplica(t, filepath.Join(t.TempDir(), "replica"), Options{})
	// Recently deleted copies are kept too: Dad may restore them.
	if _, err := r.Sync(ctx, c); err != nil {
		t.Fatal(err)
	}
	for _, sha := range shas[1:] {
		if !r.Copies().Has(sha) {
			t.Fatalf("copy %s not cached after the first sync", sha)
		}
	}
	// The deleted moment's copy, as the window caches it when Dad opens
	// Recently deleted.
	if err := r.Copies().Put(shas[0], 2700, bytes.NewReader(bytes.Repeat([]byte{0, 0xff, 0xd8}, 900)), now); err != nil {
		t.Fatal(err)
	}

	mu.Lock()
	now = now.Add(31 * 24 * time.Hour)
	mu.Unlock()
	waitFor(t, "the engine to purge the moment deleted 31 days ago", func() bool {
		_, err := c.Moment(ctx, ids[0])
		return api.ErrorCode(err) == api.CodeMomentPurged
	})
	if _, err := r.Sync(ctx, c); err != nil {
		t.Fatal(err)
	}
	if r.Copies().Has(shas[0]) {
		t.Errorf("the purged moment's copy is still cached")
	}
	if _, err := os.Stat(filepath.Join(r.Copies().dir, shas[0])); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the purged moment's copy is still on disk: %v", err)
	}
	for _, sha := range shas[1:] {
		if !r.Copies().Has(sha) {
			t.Errorf("copy %s of a live moment left the cache", sha)
		}
	}
	if del, _, err := r.DeletedPage(ctx, time.Time{}, 10, ""); err != nil || len(del) != 0 {
		t.Errorf("Recently deleted on this computer = %+v, %v; want empty", del, err)
	}
	eng.Close()
	sameAsEngine(t, r, eng.Dir)
}
