package replica

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/sparkfamily/spark/engine/enginetest"
)

func blob(i int) ([]byte, string) {
	b := bytes.Repeat([]byte{byte(i)}, 100)
	s := sha256.Sum256(b)
	return b, hex.EncodeToString(s[:])
}

func cached(c *Cache) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for sha := range c.entries {
		out = append(out, sha)
	}
	sort.Strings(out)
	return out
}

func TestCache_EvictsTheLeastRecentlyViewed(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	c, err := openCache(dir, 300, func() time.Time { return now })
	if err != nil {
		t.Fatal(err)
	}
	day := func(d int) time.Time { return now.AddDate(0, 0, d-30) }
	var shas []string
	for i := range 3 {
		b, sha := blob(i)
		if err := c.Put(sha, 100, bytes.NewReader(b), day(i)); err != nil {
			t.Fatal(err)
		}
		shas = append(shas, sha)
	}
	// Viewing the oldest makes it the newest.
	f, err := c.View(shas[0])
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	// A copy stamped before everything cached does not fit: nothing goes.
	b3, sha3 := blob(3)
	if err := c.Put(sha3, 100, bytes.NewReader(b3), day(-5)); !errors.Is(err, ErrCacheFull) {
		t.Fatalf("Put of an older copy into a full cache = %v, want ErrCacheFull", err)
	}
	if c.Has(sha3) || len(cached(c)) != 3 {
		t.Fatalf("cache holds %v after a refused put", cached(c))
	}
	// A newer one evicts the least recently viewed: shas[1].
	if err := c.Put(sha3, 100, bytes.NewReader(b3), day(10)); err != nil {
		t.Fatal(err)
	}
	if c.Has(shas[1]) || !c.Has(shas[0]) || !c.Has(shas[2]) || !c.Has(sha3) {
		t.Fatalf("after eviction the cache holds %v", cached(c))
	}
	if _, err := os.Stat(filepath.Join(dir, shas[1])); !os.IsNotExist(err) {
		t.Errorf("the evicted copy's file is still there: %v", err)
	}
	// A pinned copy is never evicted, even the least recently viewed.
	c.Pin(shas[2])
	b4, sha4 := blob(4)
	if err := c.Put(sha4, 100, bytes.NewReader(b4), day(20)); err != nil {
		t.Fatal(err)
	}
	if !c.Has(shas[2]) || c.Has(sha3) {
		t.Fatalf("with %s pinned the cache holds %v", shas[2], cached(c))
	}
	c.Unpin(shas[2])
	if n, size := c.Usage(); n != 3 || size != 300 {
		t.Errorf("usage = %d copies, %d bytes; want 3, 300", n, size)
	}

	// Reopened, the cache knows its copies and their last views.
	c2, err := openCache(dir, 300, func() time.Time { return now })
	if err != nil {
		t.Fatal(err)
	}
	if d := cached(c2); len(d) != 3 || !c2.Has(shas[0]) || !c2.Has(shas[2]) || !c2.Has(sha4) {
		t.Fatalf("reopened cache holds %v", d)
	}
	b5, sha5 := blob(5)
	if err := c2.Put(sha5, 100, bytes.NewReader(b5), day(25)); err != nil {
		t.Fatal(err)
	}
	if c2.Has(shas[2]) || !c2.Has(shas[0]) {
		t.Errorf("the reopened cache evicted by the wrong order: %v", cached(c2))
	}
}

func TestCache_RefusesBytesThatAreNotTheCopy(t *testing.T) {
	dir := t.TempDir()
	c, err := openCache(dir, 1<<20, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	b, sha := blob(1)
	other := append([]byte(nil), b...)
	other[0] ^= 1
	for name, tc := range map[string]struct {
		body []byte
		size int64
	}{
		"other bytes": {other, 100},
		"cut short":   {b[:50], 100},
		"too long":    {append(append([]byte(nil), b...), 'x'), 100},
	} {
		t.Run(name, func(t *testing.T) {
			err := c.Put(sha, tc.size, bytes.NewReader(tc.body), time.Now())
			var ce *ChecksumError
			if !errors.As(err, &ce) {
				t.Fatalf("Put = %v, want a ChecksumError", err)
			}
			if c.Has(sha) {
				t.Fatal("bad bytes were cached")
			}
		})
	}
	if err := c.Put("../../etc/passwd", 100, bytes.NewReader(b), time.Now()); err == nil {
		t.Error("a name that is not a SHA-256 was accepted")
	}
	if names, _ := os.ReadDir(dir); len(names) != 0 {
		t.Errorf("refused copies left files: %v", names)
	}
	if _, err := c.View(sha); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("View of an uncached copy = %v, want ErrNotExist", err)
	}
	if err := c.Put(sha, 100, bytes.NewReader(b), time.Now()); err != nil {
		t.Fatal(err)
	}
	f, err := c.View(sha)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(f)
	f.Close()
	if !bytes.Equal(got, b) {
		t.Error("the cached copy differs")
	}
}

// A small budget: sync caches the newest moments' copies and says how many
// are missing, and a second sync neither fetches nor evicts anything.
func TestSync_CacheBudget(t *testing.T) {
	eng := enginetest.Start(t)
	data := t.TempDir()
	capture(t, eng, data, 6, 6000)
	copies := serve(t, eng).copies
	var size int64
	for _, b := range copies {
		size = max(size, int64(len(b)))
	}
	r := openReplica(t, filepath.Join(data, "replica"), Options{CacheBytes: 3*size + size/2})
	res, err := r.Sync(ctxT(t), clientOf(eng))
	if err != nil {
		t.Fatal(err)
	}
	if res.Cached < 3 || res.Missing == 0 || res.Cached+res.Missing != 6 {
		t.Fatalf("sync = %+v, want about 3 cached and the rest missing", res)
	}
	moments, err := r.Moments(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	sort.SliceStable(moments, func(i, j int) bool { return moments[i].CreatedAt.After(moments[j].CreatedAt) })
	for i, m := range moments {
		if want := i < res.Cached; r.Copies().Has(m.Copy.SHA256) != want {
			t.Errorf("moment %d (most recently created first): cached %v, want %v", i, !want, want)
		}
	}
	again, err := r.Sync(ctxT(t), clientOf(eng))
	if err != nil || again.Copies != 0 || again.Cached != res.Cached {
		t.Errorf("second sync = %+v, %v; want nothing fetched and the same %d cached", again, err, res.Cached)
	}
}

// A smaller budget evicts the least recently viewed copies, never a pinned
// one, and survives nothing else; a larger one takes copies again.
func TestCache_SetBudget(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	c, err := openCache(dir, 500, func() time.Time { return now })
	if err != nil {
		t.Fatal(err)
	}
	var shas []string
	for i := range 5 {
		b, sha := blob(i)
		if err := c.Put(sha, 100, bytes.NewReader(b), now.AddDate(0, 0, i-10)); err != nil {
			t.Fatal(err)
		}
		shas = append(shas, sha)
	}
	c.Pin(shas[0]) // the oldest is on screen
	if err := c.SetBudget(250); err != nil {
		t.Fatal(err)
	}
	want := []string{shas[0], shas[4]}
	sort.Strings(want)
	if got := cached(c); !slices.Equal(got, want) {
		t.Errorf("after shrinking, cached %v, want the pinned copy and the newest %v", got, want)
	}
	if n, total := c.Usage(); n != 2 || total != 200 || c.Budget() != 250 {
		t.Errorf("usage %d copies, %d bytes, budget %d; want 2, 200, 250", n, total, c.Budget())
	}
	for _, sha := range shas[1:4] {
		if _, err := os.Stat(filepath.Join(dir, sha)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("evicted copy %s still on disk: %v", sha, err)
		}
	}
	if err := c.SetBudget(0); err == nil {
		t.Error("SetBudget(0) accepted")
	}
	if err := c.SetBudget(1000); err != nil {
		t.Fatal(err)
	}
	b, sha := blob(1)
	if err := c.Put(sha, 100, bytes.NewReader(b), now); err != nil {
		t.Errorf("Put after growing: %v", err)
	}
}
