package backup

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sparkfamily/spark/engine/api"
)

// flipObject flips a byte in the middle of the first object (by name)
// under prefix in the folder root (a folder target's, or a versitygw
// bucket's) and returns its name, relative to root.
func flipObject(tb testing.TB, root, prefix string) string {
	tb.Helper()
	var name string
	for n := range objects(tb, root) {
		if strings.HasPrefix(n, prefix) && !strings.Contains(n, "/.") && (name == "" || n < name) {
			name = n
		}
	}
	if name == "" {
		tb.Fatalf("no object under %s in %s", prefix, root)
	}
	p := filepath.Join(root, filepath.FromSlash(name))
	b, err := os.ReadFile(p)
	if err != nil {
		tb.Fatal(err)
	}
	b[len(b)/2] ^= 0x10
	if err := os.WriteFile(p, b, 0o600); err != nil {
		tb.Fatal(err)
	}
	return name
}

// copyBytes is the bytes of every object of the target.
func copyBytes(tb testing.TB, t Target) int64 {
	tb.Helper()
	var n int64
	if err := t.List(context.Background(), "", func(_ string, size int64) error { n += size; return nil }); err != nil {
		tb.Fatal(err)
	}
	return n
}

// TestCheck: the drill restores the copy into a temporary folder under
// the one given, says how many moments and bytes it holds, and leaves
// nothing behind.
func TestCheck(t *testing.T) {
	src := corpus(t, 12)
	tgt := mustFolder(t, t.TempDir())
	ship(t, src, tgt, 1<<10)
	tmp := t.TempDir()
	before := time.Now()
	c, err := Check(context.Background(), tgt, CheckOptions{TempDir: tmp, Key: testKey, Logger: quiet})
	if err != nil {
		t.Fatalf("Check of a whole copy: %v", err)
	}
	if !c.OK || c.Moments != 12 || c.Bytes != copyBytes(t, tgt) || c.Sampled || c.At.Before(before) {
		t.Errorf("Check = %+v, want ok, 12 moments, %d bytes, not sampled", c, copyBytes(t, tgt))
	}
	if ents, err := os.ReadDir(tmp); err != nil || len(ents) != 0 {
		t.Errorf("the drill left %v in its temporary folder (%v)", ents, err)
	}
}

// TestCheck_Damaged (issue 34, e): a byte flipped behind Spark's back in
// a shipped photo or segment fails the drill, as damaged, naming the
// object; in a folder and in a versitygw bucket.
func TestCheck_Damaged(t *testing.T) {
	src := corpus(t, 8)
	targets := map[string]func(t *testing.T) (Target, string){
		"folder": func(t *testing.T) (Target, string) {
			root := t.TempDir()
			return mustFolder(t, root), root
		},
		"s3": func(t *testing.T) (Target, string) {
			srv, open := s3Target(t)
			tg := open(t)
			prefix := strings.TrimPrefix(tg.String(), "s3://spark/")
			return tg, filepath.Join(srv.Root, "spark", filepath.FromSlash(strings.Fields(prefix)[0]))
		},
	}
	for kind, open := range targets {
		for _, prefix := range []string{"media/", "log/"} {
			t.Run(kind+"/"+strings.TrimSuffix(prefix, "/"), func(t *testing.T) {
				tgt, root := open(t)
				ship(t, src, tgt, 1<<10)
				name := flipObject(t, root, prefix)
				c, err := Check(context.Background(), tgt, CheckOptions{TempDir: t.TempDir(), Key: testKey, Logger: quiet})
				if err == nil || !strings.Contains(err.Error(), name) || ProblemOf(err) != api.BackupDamaged {
					t.Fatalf("Check with %s flipped = %v (problem %s), want damaged naming it", name, err, ProblemOf(err))
				}
				if c == nil || c.OK || c.At.IsZero() {
					t.Errorf("the failed check's result = %+v, want one, not ok", c)
				}
			})
		}
	}
}

// TestCheck_Sampled: past FullBytes of photos the drill fetches the whole
// log but only a sample of the photos, each checked; the photos it does
// not fetch must still be in the copy, at their size.
func TestCheck_Sampled(t *testing.T) {
	src := t.TempDir()
	e := openEngine(t, src)
	capture(t, e, 0, 20) // 10 photos
	e.Close()
	opts := CheckOptions{FullBytes: 1, SamplePhotos: 3, Key: testKey, Logger: quiet}
	t.Run("Whole", func(t *testing.T) {
		tgt := mustFolder(t, t.TempDir())
		ship(t, src, tgt, 1<<10)
		var fetched atomic.Int64
		ct := &getCounting{Target: tgt, gets: &fetched}
		c, err := Check(context.Background(), ct, opts)
		if err != nil || !c.OK || !c.Sampled || c.Moments != 20 {
			t.Fatalf("sampled Check = %+v, %v; want ok, sampled, 20 moments", c, err)
		}
		if n := fetched.Load(); n != 3 {
			t.Errorf("the drill fetched %d photos, want the sample of 3", n)
		}
	})
	t.Run("AllFlipped", func(t *testing.T) {
		root := t.TempDir()
		tgt := mustFolder(t, root)
		ship(t, src, tgt, 1<<10)
		for n := range objects(t, root) {
			if strings.HasPrefix(n, mediaPrefix) {
				p := filepath.Join(root, filepath.FromSlash(n))
				b, _ := os.ReadFile(p)
				b[0] ^= 1
				if err := os.WriteFile(p, b, 0o600); err != nil {
					t.Fatal(err)
				}
			}
		}
		if _, err := Check(context.Background(), tgt, opts); ProblemOf(err) != api.BackupDamaged || !strings.Contains(err.Error(), "media/") {
			t.Fatalf("sampled Check of damaged photos = %v, want damaged naming one", err)
		}
	})
	t.Run("Missing", func(t *testing.T) {
		root := t.TempDir()
		tgt := mustFolder(t, root)
		ship(t, src, tgt, 1<<10)
		n := 0
		for name := range objects(t, root) {
			if strings.HasPrefix(name, mediaPrefix) && n < 5 {
				n++
				if err := os.Remove(filepath.Join(root, filepath.FromSlash(name))); err != nil {
					t.Fatal(err)
				}
			}
		}
		if _, err := Check(context.Background(), tgt, opts); ProblemOf(err) != api.BackupDamaged || !strings.Contains(err.Error(), "media/") {
			t.Fatalf("sampled Check with photos missing = %v, want damaged naming one", err)
		}
	})
}

// getCounting counts the photos fetched (Restore fetches several at once).
type getCounting struct {
	Target
	gets *atomic.Int64
}

func (g *getCounting) Get(ctx context.Context, name string) (io.ReadCloser, error) {
	if strings.HasPrefix(name, mediaPrefix) {
		g.gets.Add(1)
	}
	return g.Target.Get(ctx, name)
}

// hiding lists every object but one: a photo shipped after the drill's
// listing, with the segment that names it.
type hiding struct {
	Target
	name string
}

func (h hiding) List(ctx context.Context, prefix string, fn func(string, int64) error) error {
	return h.Target.List(ctx, prefix, func(n string, size int64) error {
		if n == h.name {
			return nil
		}
		return fn(n, size)
	})
}

// TestCheck_ShippedMeanwhile: a sampled drill beside a running Keeper
// meets a photo its listing did not have (shipped since, before its
// segment): it asks the copy for it rather than call it missing.
func TestCheck_ShippedMeanwhile(t *testing.T) {
	src := corpus(t, 8)
	root := t.TempDir()
	tgt := mustFolder(t, root)
	ship(t, src, tgt, 1<<10)
	var name string
	for n := range objects(t, root) {
		if strings.HasPrefix(n, mediaPrefix) {
			name = n
		}
	}
	c, err := Check(context.Background(), hiding{tgt, name}, CheckOptions{FullBytes: 1, SamplePhotos: 1, Key: testKey, Logger: quiet})
	if err != nil || !c.OK {
		t.Fatalf("a drill whose listing missed %s, shipped meanwhile: %+v, %v; want ok", name, c, err)
	}
}
