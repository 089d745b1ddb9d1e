package backup

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sparkfamily/spark/engine"
)

// objects reads every object of the folder target at root.
func objects(tb testing.TB, root string) map[string][]byte {
	tb.Helper()
	m := map[string][]byte{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(root, p)
		m[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

// TestShip_Crash stops a pass after each number of puts in turn (a
// crash between a photo and its segment, between two segments...), then
// runs it again: the copy converges, no body is put twice, and nothing
// already there is changed.
func TestShip_Crash(t *testing.T) {
	src := corpus(t, 16)
	want, last := logPrefixBytes(t, src, 0)

	full := &counting{Target: mustFolder(t, t.TempDir()), failAfter: -1}
	ship(t, src, full, 1<<10)
	total := full.total()
	if total < 10 {
		t.Fatalf("a full pass puts %d objects; the test wants more", total)
	}
	for n := 1; n < total; n++ {
		root := t.TempDir()
		ct := &counting{Target: mustFolder(t, root), failAfter: n}
		if _, err := (&Shipper{Dir: src, Target: ct, SegmentBytes: 1 << 10, Logger: quiet, Key: testKey}).Ship(context.Background()); !errors.Is(err, errInjected) {
			t.Fatalf("crash after %d puts: Ship = %v, want the injected error", n, err)
		}
		before := objects(t, root)
		ct.failAfter = -1
		if st := ship(t, src, ct, 1<<10); st.LastSeq != last {
			t.Fatalf("crash after %d puts: the rerun shipped through %d, want %d", n, st.LastSeq, last)
		}
		for name, c := range ct.puts {
			if c != 1 {
				t.Errorf("crash after %d puts: %s was put %d times", n, name, c)
			}
		}
		after := objects(t, root)
		for name, b := range before {
			if !bytes.Equal(after[name], b) {
				t.Errorf("crash after %d puts: %s changed", n, name)
			}
		}
		if n%4 == 1 {
			dir, _ := restore(t, ct.Target, RestoreOptions{})
			got, err := os.ReadFile(filepath.Join(dir, "ops.log"))
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("crash after %d puts: the restored log differs from the source's (%v)", n, err)
			}
		}
	}
}

func mustFolder(tb testing.TB, root string) *Folder {
	tb.Helper()
	f, err := OpenFolder(root)
	if err != nil {
		tb.Fatal(err)
	}
	return f
}

// TestRestore_Damaged flips a byte of a photo and of a segment in the
// copy: the restore fails and names the object.
func TestRestore_Damaged(t *testing.T) {
	src := corpus(t, 8)
	for _, prefix := range []string{"media/", "log/"} {
		t.Run(strings.TrimSuffix(prefix, "/"), func(t *testing.T) {
			root := t.TempDir()
			tgt := mustFolder(t, root)
			ship(t, src, tgt, 1<<10)
			var name string
			for n := range objects(t, root) {
				if strings.HasPrefix(n, prefix) && (name == "" || n < name) {
					name = n
				}
			}
			p := filepath.Join(root, filepath.FromSlash(name))
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			b[len(b)/2] ^= 0x10
			if err := os.WriteFile(p, b, 0o600); err != nil {
				t.Fatal(err)
			}
			_, err = Restore(context.Background(), tgt, filepath.Join(t.TempDir(), "r"), RestoreOptions{Logger: quiet, Key: testKey})
			if err == nil || !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), "damaged") {
				t.Fatalf("Restore = %v, want an error saying %s is damaged", err, name)
			}
		})
	}
}

func TestRestore_ErrNotEmpty(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "keep.txt"), []byte("mine"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Restore(context.Background(), mustFolder(t, t.TempDir()), dir, RestoreOptions{Logger: quiet})
	if !errors.Is(err, ErrNotEmpty) {
		t.Fatalf("Restore into a folder with a file: %v, want ErrNotEmpty", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "keep.txt")); string(b) != "mine" {
		t.Errorf("the file there changed")
	}
}

// TestShip_OtherLog refuses to ship a folder whose log is not the one the
// copy was made of.
func TestShip_OtherLog(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	for i, dir := range []string{a, b} {
		e := openEngine(t, dir)
		capture(t, e, i*100, 4)
		e.Close()
	}
	tgt := mustFolder(t, t.TempDir())
	ship(t, a, tgt, 0)
	_, err := (&Shipper{Dir: b, Target: tgt, Logger: quiet, Key: testKey}).Ship(context.Background())
	if err == nil || !strings.Contains(err.Error(), "new target") {
		t.Fatalf("shipping another log to the copy: %v, want a refusal", err)
	}
}

// cutting is a Target whose Gets fail from the cut-th on (counting from
// 1), as a store that goes away, or a restore killed, mid-way.
type cutting struct {
	Target
	mu   sync.Mutex
	gets int
	cut  int // 0: never
}

func (c *cutting) Get(ctx context.Context, name string) (io.ReadCloser, error) {
	c.mu.Lock()
	c.gets++
	cut := c.cut > 0 && c.gets >= c.cut
	c.mu.Unlock()
	if cut {
		return nil, errInjected
	}
	return c.Target.Get(ctx, name)
}

// TestRestore_CutLeavesNoLog cuts a restore at every object it fetches:
// the folder left never holds the log under its name (the restore writes
// it under another and renames it only once every photo, every folder
// and the log are synced), so no engine or person takes it for a
// restored folder; and Restore refuses it until it is emptied.
func TestRestore_CutLeavesNoLog(t *testing.T) {
	src := corpus(t, 8)
	tgt := mustFolder(t, t.TempDir())
	ship(t, src, tgt, 1<<10)
	all := &cutting{Target: tgt}
	restore(t, all, RestoreOptions{})
	if all.gets < 4 {
		t.Fatalf("a whole restore fetched %d objects: the corpus is too small to cut", all.gets)
	}
	for cut := 1; cut <= all.gets; cut++ {
		dir := filepath.Join(t.TempDir(), "r")
		_, err := Restore(context.Background(), &cutting{Target: tgt, cut: cut}, dir, RestoreOptions{Logger: quiet, Key: testKey})
		if !errors.Is(err, errInjected) {
			t.Fatalf("cut at fetch %d of %d: Restore = %v, want the injected failure", cut, all.gets, err)
		}
		for _, name := range []string{engine.LogFile, engine.MirrorFile} {
			if _, err := os.Stat(filepath.Join(dir, name)); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("cut at fetch %d of %d: %s is there (%v): the folder looks restored", cut, all.gets, name, err)
			}
		}
		if ents, _ := os.ReadDir(dir); len(ents) == 0 {
			continue // cut before anything was written (the manifest)
		}
		if _, err := Restore(context.Background(), tgt, dir, RestoreOptions{Logger: quiet, Key: testKey}); !errors.Is(err, ErrNotEmpty) {
			t.Errorf("cut at fetch %d: a second Restore into the folder left = %v, want ErrNotEmpty", cut, err)
		}
	}
}

// statCounting counts the target's Stats and its listings of photos.
type statCounting struct {
	Target
	stats, lists atomic.Int64
}

func (s *statCounting) Stat(ctx context.Context, name string) (int64, error) {
	s.stats.Add(1)
	return s.Target.Stat(ctx, name)
}

func (s *statCounting) List(ctx context.Context, prefix string, fn func(string, int64) error) error {
	if prefix == mediaPrefix {
		s.lists.Add(1)
	}
	return s.Target.List(ctx, prefix, fn)
}

// TestShip_FirstCopyLists: a pass to a copy with no segment yet lists
// the photos there once and asks for none, also after a first pass cut
// short (which puts no photo twice: TestShip_Crash); a pass to a copy
// that has segments asks for each photo it would put.
func TestShip_FirstCopyLists(t *testing.T) {
	src := t.TempDir()
	e := openEngine(t, src)
	capture(t, e, 0, 8)
	root := t.TempDir()
	ct := &counting{Target: mustFolder(t, root), failAfter: 2}
	if _, err := (&Shipper{Dir: src, Target: ct, Logger: quiet, Key: testKey}).Ship(context.Background()); !errors.Is(err, errInjected) {
		t.Fatalf("a first pass cut after 2 puts: %v, want the injected failure", err)
	}
	sc := &statCounting{Target: mustFolder(t, root)}
	ship(t, src, sc, 0)
	if sc.stats.Load() != 0 || sc.lists.Load() != 1 {
		t.Errorf("a first copy: %d Stats and %d listings of the photos, want 0 and 1", sc.stats.Load(), sc.lists.Load())
	}
	capture(t, e, 8, 4)
	e.Close()
	sc = &statCounting{Target: mustFolder(t, root)}
	ship(t, src, sc, 0)
	if sc.stats.Load() != 2 || sc.lists.Load() != 0 {
		t.Errorf("a copy with segments, 2 new photos: %d Stats and %d listings of the photos, want 2 and 0", sc.stats.Load(), sc.lists.Load())
	}
}

// inFlight is a Target that notes the most photo puts under way at once.
type inFlight struct {
	Target
	mu       sync.Mutex
	now, max int
}

func (f *inFlight) Put(ctx context.Context, name string, body io.Reader, size int64, sum [32]byte) error {
	if strings.HasPrefix(name, mediaPrefix) {
		f.mu.Lock()
		f.now++
		f.max = max(f.max, f.now)
		f.mu.Unlock()
		defer func() { f.mu.Lock(); f.now--; f.mu.Unlock() }()
		time.Sleep(20 * time.Millisecond) // a put takes a while
	}
	return f.Target.Put(ctx, name, body, size, sum)
}

// TestShip_BusyOnePut: while the engine is busy (Busy, which a Keeper
// sets from its Kicks) a pass puts one photo at a time; otherwise
// several at once.
func TestShip_BusyOnePut(t *testing.T) {
	src := corpus(t, 16)
	for _, busy := range []bool{true, false} {
		tgt := &inFlight{Target: mustFolder(t, t.TempDir())}
		sh := &Shipper{Dir: src, Target: tgt, Logger: quiet, Key: testKey, Busy: func() bool { return busy }}
		if _, err := sh.Ship(context.Background()); err != nil {
			t.Fatal(err)
		}
		if busy && tgt.max != 1 || !busy && tgt.max < 2 {
			t.Errorf("busy %v: at most %d photos put at once", busy, tgt.max)
		}
	}
	k := &Keeper{Shipper: &Shipper{Dir: src, Target: mustFolder(t, t.TempDir()), Logger: quiet, Key: testKey}}
	if k.busy() {
		t.Errorf("a Keeper never kicked is busy")
	}
	k.Kick()
	if !k.busy() {
		t.Errorf("a Keeper just kicked is not busy")
	}
}
