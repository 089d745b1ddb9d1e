package backup

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/sparkfamily/spark/engine"
	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/media"
	"github.com/sparkfamily/spark/engine/mirror"
	"github.com/sparkfamily/spark/engine/oplog"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// openEngine opens a real engine on dir.
func openEngine(tb testing.TB, dir string) *engine.Engine {
	tb.Helper()
	e, err := engine.Open(context.Background(), engine.Config{Dir: dir, Logger: quiet})
	if err != nil {
		tb.Fatal(err)
	}
	return e
}

// photo makes a small real JPEG, different for each seed.
func photo(tb testing.TB, seed int) []byte {
	tb.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 24, 16))
	for y := range 16 {
		for x := range 24 {
			img.Set(x, y, color.RGBA{uint8(x*10 + seed), uint8(y*15 + seed/256), uint8(seed * 37), 255})
		}
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, nil); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}

// capture writes n moments through the engine's API from seed on: every
// other one a photo with its original, every third one edited after.
func capture(tb testing.TB, e *engine.Engine, seed, n int) {
	tb.Helper()
	ctx := context.Background()
	for i := seed; i < seed+n; i++ {
		kind := api.KindNote
		if i%2 == 0 {
			kind = api.KindPhoto
		}
		mo, _, err := e.CreateMoment(ctx, api.CreateMomentRequest{Kind: kind, Caption: fmt.Sprintf("moment %d", i)})
		if err != nil {
			tb.Fatal(err)
		}
		if kind == api.KindPhoto {
			body := photo(tb, i)
			if _, _, err := e.PutMedia(ctx, engine.PutMedia{ID: ulid.Make().String(), MomentID: mo.ID, Role: api.RoleOriginal, ContentType: "image/jpeg", Body: bytes.NewReader(body), Size: -1}); err != nil {
				tb.Fatal(err)
			}
		}
		if i%3 == 0 {
			c := fmt.Sprintf("moment %d, edited", i)
			if _, _, err := e.EditMoment(ctx, mo.ID, api.EditMomentRequest{Caption: &c}); err != nil {
				tb.Fatal(err)
			}
		}
	}
}

// corpus is a closed engine folder holding n moments written by capture.
func corpus(tb testing.TB, n int) string {
	tb.Helper()
	src := tb.TempDir()
	e := openEngine(tb, src)
	capture(tb, e, 0, n)
	e.Close()
	return src
}

// counting is a Target that counts the bodies put, and fails every Put
// after failAfter of them (never, when it is negative).
type counting struct {
	Target
	mu        sync.Mutex
	puts      map[string]int
	failAfter int
}

var errInjected = errors.New("injected: the target went away")

func (c *counting) Put(ctx context.Context, name string, body io.Reader, size int64, sum [32]byte) error {
	c.mu.Lock()
	if c.failAfter == 0 {
		c.mu.Unlock()
		return errInjected
	}
	c.failAfter--
	if c.puts == nil {
		c.puts = map[string]int{}
	}
	c.puts[name]++
	c.mu.Unlock()
	return c.Target.Put(ctx, name, body, size, sum)
}

func (c *counting) total() int {
	n := 0
	for _, v := range c.puts {
		n += v
	}
	return n
}

func ship(tb testing.TB, dir string, t Target, segBytes int) Stats {
	tb.Helper()
	st, err := (&Shipper{Dir: dir, Target: t, SegmentBytes: segBytes, Logger: quiet, Key: testKey}).Ship(context.Background())
	if err != nil {
		tb.Fatalf("Ship: %v", err)
	}
	return st
}

// logPrefixBytes returns the source log's bytes through the group that
// holds seq (or all of it, seq 0), and the last seq they hold.
func logPrefixBytes(tb testing.TB, dir string, seq uint64) ([]byte, uint64) {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join(dir, engine.LogFile))
	if err != nil {
		tb.Fatal(err)
	}
	rd := oplog.NewReader(bytes.NewReader(b), "ops.log", 0)
	var end int
	var last uint64
	for {
		rec, more, raw, err := rd.Next()
		if err == io.EOF {
			return b[:end], last
		}
		if err != nil {
			tb.Fatal(err)
		}
		if seq != 0 && rec.Seq > seq && end > 0 && last >= seq {
			return b[:end], last
		}
		end += len(raw)
		if !more {
			last = rec.Seq
		}
	}
}

func restore(tb testing.TB, t Target, opts RestoreOptions) (string, *Restored) {
	tb.Helper()
	dir := filepath.Join(tb.TempDir(), "restored")
	var out bytes.Buffer
	opts.Out, opts.Logger = &out, quiet
	if opts.Key == nil {
		opts.Key = testKey
	}
	res, err := Restore(context.Background(), t, dir, opts)
	if err != nil {
		tb.Fatalf("Restore: %v\nfsck said:\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "fsck: all good") {
		tb.Fatalf("fsck of the restored folder:\n%s", out.String())
	}
	return dir, res
}

// sameMirror folds want (a log prefix) into a fresh folder and compares
// its mirror with dir's, table by table.
func sameMirror(tb testing.TB, dir string, want []byte) {
	tb.Helper()
	ctx := context.Background()
	fold := tb.TempDir()
	if err := os.WriteFile(filepath.Join(fold, engine.LogFile), want, 0o600); err != nil {
		tb.Fatal(err)
	}
	if err := engine.Rebuild(ctx, fold, quiet); err != nil {
		tb.Fatal(err)
	}
	a, err := mirror.Open(ctx, filepath.Join(fold, engine.MirrorFile), mirror.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	defer a.Close()
	b, err := mirror.Open(ctx, filepath.Join(dir, engine.MirrorFile), mirror.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	defer b.Close()
	diffs, err := mirror.Diff(ctx, a, b, 10)
	if err != nil {
		tb.Fatal(err)
	}
	if len(diffs) > 0 {
		tb.Errorf("the restored mirror differs from the fold of the prefix:\n%s", strings.Join(diffs, "\n"))
	}
}

func TestShipRestore(t *testing.T) {
	src := t.TempDir()
	e := openEngine(t, src)
	capture(t, e, 0, 60)
	tgt, err := OpenFolder(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ct := &counting{Target: tgt, failAfter: -1}
	// A running engine holds the folder: shipping reads beside it.
	st := ship(t, src, ct, 2<<10)
	if st.Segments < 3 || st.Media != 30 {
		t.Fatalf("first pass: %+v, want several segments and 30 photos", st)
	}
	want, last := logPrefixBytes(t, src, 0)
	if st.LastSeq != last {
		t.Fatalf("shipped through seq %d, the log ends at %d", st.LastSeq, last)
	}

	t.Run("All", func(t *testing.T) {
		dir, res := restore(t, tgt, RestoreOptions{})
		got, err := os.ReadFile(filepath.Join(dir, engine.LogFile))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) || res.LastSeq != last {
			t.Fatalf("the restored log (%d bytes, seq %d) is not the source's (%d bytes, seq %d)", len(got), res.LastSeq, len(want), last)
		}
		if res.Media != 30 {
			t.Errorf("restored %d photos, want 30", res.Media)
		}
		// Every photo of the source, with its SHA-256.
		from, err := media.OpenWith(filepath.Join(src, engine.MediaDir), media.Options{ReadOnly: true, Logger: quiet})
		if err != nil {
			t.Fatal(err)
		}
		to, err := media.OpenWith(filepath.Join(dir, engine.MediaDir), media.Options{ReadOnly: true, Logger: quiet})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		err = from.Walk(context.Background(), func(sha string, _ int64) error {
			n++
			return to.Verify(context.Background(), sha)
		})
		if err != nil || n != 30 {
			t.Fatalf("photos: %d walked, %v", n, err)
		}
		sameMirror(t, dir, want)
		// The engine opens the restored folder and reads the same moments.
		r := openEngine(t, dir)
		defer r.Close()
		a, _, err := e.Moments(context.Background(), 100, "")
		if err != nil {
			t.Fatal(err)
		}
		b, _, err := r.Moments(context.Background(), 100, "")
		if err != nil {
			t.Fatal(err)
		}
		if len(a) != 60 || len(b) != len(a) {
			t.Fatalf("the restored engine reads %d moments, the source %d", len(b), len(a))
		}
		originals := 0
		for i := range b {
			if b[i].Original != nil {
				originals++
			}
		}
		if originals != 30 {
			t.Errorf("the restored engine reads %d moments with an original, want 30", originals)
		}
		for i := range a {
			if a[i].ID != b[i].ID || a[i].Caption != b[i].Caption || (a[i].Original == nil) != (b[i].Original == nil) || a[i].Original != nil && a[i].Original.SHA256 != b[i].Original.SHA256 {
				t.Errorf("moment %d: restored %+v, source %+v", i, b[i], a[i])
			}
		}
	})

	t.Run("PointInTime", func(t *testing.T) {
		r := rand.New(rand.NewPCG(34, uint64(last)))
		for range 20 {
			seq := 1 + r.Uint64N(last)
			prefix, upTo := logPrefixBytes(t, src, seq)
			dir, res := restore(t, tgt, RestoreOptions{Seq: seq})
			got, err := os.ReadFile(filepath.Join(dir, engine.LogFile))
			if err != nil {
				t.Fatal(err)
			}
			if res.LastSeq != upTo || !bytes.Equal(got, prefix) {
				t.Fatalf("--seq %d: restored through %d (%d bytes), want the group through %d (%d bytes)", seq, res.LastSeq, len(got), upTo, len(prefix))
			}
			sameMirror(t, dir, prefix)
		}
	})

	t.Run("At", func(t *testing.T) {
		// Times of random ops: the restore holds every group logged by
		// then (the engine's clock only goes forward here).
		var ats []time.Time
		l, err := oplog.Open(filepath.Join(src, engine.LogFile), oplog.Options{ReadOnly: true, Logger: quiet})
		if err != nil {
			t.Fatal(err)
		}
		err = l.Scan(context.Background(), 0, func(r oplog.Record) error { ats = append(ats, r.At); return nil })
		l.Close()
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(35, uint64(last)))
		for range 5 {
			at := ats[r.IntN(len(ats))].Add(time.Duration(r.IntN(3)-1) * time.Microsecond)
			var upTo uint64
			for i, a := range ats {
				if !a.After(at) {
					upTo = uint64(i + 1)
				}
			}
			if upTo == 0 {
				continue
			}
			prefix, groupEnd := logPrefixBytes(t, src, upTo)
			if groupEnd != upTo {
				t.Fatalf("ops of one group logged at different times: %d, %d", upTo, groupEnd)
			}
			dir, res := restore(t, tgt, RestoreOptions{At: at})
			if res.LastSeq != upTo {
				t.Fatalf("--at %s restored through seq %d, want %d", at.Format(time.RFC3339Nano), res.LastSeq, upTo)
			}
			sameMirror(t, dir, prefix)
		}
	})

	t.Run("SecondPassSendsOnlyNew", func(t *testing.T) {
		before := map[string]int{}
		for k, v := range ct.puts {
			before[k] = v
		}
		capture(t, e, 1000, 10)
		st := ship(t, src, ct, 2<<10)
		if st.Media != 5 || st.Segments == 0 {
			t.Fatalf("second pass: %+v, want 5 photos and new segments", st)
		}
		for k, v := range ct.puts {
			if v != 1 {
				t.Errorf("%s was put %d times", k, v)
			}
			if _, old := before[k]; !old && !strings.HasPrefix(k, "log/") && !strings.HasPrefix(k, "media/") {
				t.Errorf("an unexpected object %s", k)
			}
		}
		if got, want := ct.total()-len(before), 5+st.Segments; got != want {
			t.Errorf("second pass put %d bodies, want %d (5 photos, %d segments)", got, want, st.Segments)
		}
		if st := ship(t, src, ct, 2<<10); st.Segments != 0 || st.Media != 0 {
			t.Errorf("a pass with nothing new: %+v, want nothing put", st)
		}
	})
	e.Close()
}

// TestKeeper_Run ships every Interval while the engine takes captures:
// the copy catches up with the log, Health says so, and a restore of it
// is the log.
func TestKeeper_Run(t *testing.T) {
	src := t.TempDir()
	e := openEngine(t, src)
	defer e.Close()
	tgt := mustFolder(t, t.TempDir())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	k := &Keeper{Shipper: &Shipper{Dir: src, Target: tgt, SegmentBytes: 1 << 10, Interval: 20 * time.Millisecond, Logger: quiet, Key: testKey}}
	if h := k.Health(); h.State != api.BackupCatchingUp || h.ShippedAt != nil {
		t.Errorf("Health before a pass = %+v, want catching_up and never shipped", h)
	}
	go func() { done <- k.Run(ctx) }()
	capture(t, e, 0, 30)
	_, last := logPrefixBytes(t, src, 0)
	deadline := time.Now().Add(20 * time.Second)
	for {
		shipped, _, err := lastSegment(context.Background(), tgt)
		if err != nil {
			t.Fatal(err)
		}
		if shipped == last {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 20 s the copy holds seq %d of %d", shipped, last)
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Run = %v, want context.Canceled", err)
	}
	if h := k.Health(); h.State != api.BackupCurrent || h.ShippedSeq != last || h.Seq != last || h.ShippedAt == nil || h.BehindSince != nil || h.Problem != "" {
		t.Errorf("Health after the copy caught up = %+v, want current through seq %d", h, last)
	}
	want, _ := logPrefixBytes(t, src, last)
	dir, _ := restore(t, tgt, RestoreOptions{})
	got, err := os.ReadFile(filepath.Join(dir, engine.LogFile))
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("the restored log (%d bytes) is not the source's (%d bytes): %v", len(got), len(want), err)
	}
}

// TestShipper_Resume: a Shipper's next pass reads only what the log got
// since its last, and one whose log was replaced under it reads it all
// again and refuses it.
func TestShipper_Resume(t *testing.T) {
	src := t.TempDir()
	e := openEngine(t, src)
	capture(t, e, 0, 20)
	tgt := mustFolder(t, t.TempDir())
	sh := &Shipper{Dir: src, Target: tgt, SegmentBytes: 1 << 10, Logger: quiet, Key: testKey}
	size := func() int64 {
		fi, err := os.Stat(filepath.Join(src, engine.LogFile))
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	st, err := sh.Ship(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if before := size(); st.ReadBytes != before {
		t.Fatalf("a first pass read %d bytes of a %d-byte log, want all", st.ReadBytes, before)
	}
	before := size()
	capture(t, e, 100, 4)
	grown := size() - before
	st, err = sh.Ship(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// The new bytes, plus the first record and the last shipped, checked.
	if st.ReadBytes < grown || st.ReadBytes > grown+2048 {
		t.Fatalf("the next pass read %d bytes for %d new ones", st.ReadBytes, grown)
	}
	if st, err := sh.Ship(context.Background()); err != nil || st.Segments != 0 || st.ReadBytes > 2048 {
		t.Fatalf("a pass with nothing new: %+v, %v; want nothing shipped, two records read", st, err)
	}
	e.Close()

	// Another log, longer, in the same folder: the cursor's records no
	// longer match, the pass reads from the start and refuses it.
	other := t.TempDir()
	e2 := openEngine(t, other)
	capture(t, e2, 500, 40)
	e2.Close()
	b, err := os.ReadFile(filepath.Join(other, engine.LogFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, engine.LogFile), b, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := sh.Ship(context.Background()); err == nil || !strings.Contains(err.Error(), "new target") {
		t.Fatalf("a replaced log: %v, want a refusal", err)
	}
}

// TestShipper_TornTail: an append cut short at the end of the log (what an
// engine mid-write, or a crash, leaves) is not shipped, by a first pass or
// by a resumed one; the whole groups before it are.
func TestShipper_TornTail(t *testing.T) {
	src := t.TempDir()
	e := openEngine(t, src)
	capture(t, e, 0, 10)
	tgt := mustFolder(t, t.TempDir())
	sh := &Shipper{Dir: src, Target: tgt, SegmentBytes: 1 << 10, Logger: quiet, Key: testKey}
	if _, err := sh.Ship(context.Background()); err != nil {
		t.Fatal(err)
	}
	capture(t, e, 100, 3)
	e.Close()
	want, last := logPrefixBytes(t, src, 0)
	// Half of a record after the last whole one.
	_, firstLen := func() (oplog.Record, int) {
		rec, _, raw, err := oplog.NewReader(bytes.NewReader(want), "ops.log", 0).Next()
		if err != nil {
			t.Fatal(err)
		}
		return rec, len(raw)
	}()
	f, err := os.OpenFile(filepath.Join(src, engine.LogFile), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(want[:firstLen/2]); err != nil {
		t.Fatal(err)
	}
	f.Close()
	for _, sh := range []*Shipper{sh, {Dir: src, Target: mustFolder(t, t.TempDir()), SegmentBytes: 1 << 10, Logger: quiet, Key: testKey}} {
		st, err := sh.Ship(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if st.LastSeq != last {
			t.Fatalf("shipped through seq %d, want %d (the last whole group)", st.LastSeq, last)
		}
		dir, _ := restore(t, sh.Target, RestoreOptions{})
		got, err := os.ReadFile(filepath.Join(dir, engine.LogFile))
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("the restored log (%d bytes) is not the whole groups of the source (%d bytes): %v", len(got), len(want), err)
		}
	}
}

// TestKeeper_Failing: a pass that fails is in Health at once, with its
// problem and since when the copy is behind, and the next pass that
// succeeds clears it.
func TestKeeper_Failing(t *testing.T) {
	src := t.TempDir()
	e := openEngine(t, src)
	defer e.Close()
	root := filepath.Join(t.TempDir(), "disk")
	tgt := mustFolder(t, root)
	k := &Keeper{Shipper: &Shipper{Dir: src, Target: tgt, Logger: quiet, Key: testKey}, LogSeq: e.LastSeq}
	ctx := context.Background()
	capture(t, e, 0, 2)
	if err := k.Pass(ctx); err != nil {
		t.Fatal(err)
	}
	shipped := k.Health().ShippedSeq
	// The disk is unplugged, and Dad goes on capturing.
	if err := os.Rename(root, root+"-away"); err != nil {
		t.Fatal(err)
	}
	before := time.Now()
	capture(t, e, 2, 2)
	if err := k.Pass(ctx); err == nil {
		t.Fatal("a pass to an unplugged disk succeeded")
	}
	h := k.Health()
	if h.State != api.BackupFailing || h.Problem != api.BackupUnreachable || h.Reason == "" || h.ShippedSeq != shipped {
		t.Errorf("Health with the disk away = %+v, want failing, unreachable, still through seq %d", h, shipped)
	}
	if h.BehindSince == nil || h.BehindSince.Before(before.Add(-time.Second)) {
		t.Errorf("BehindSince = %v, want about %v (the first op the copy lacks)", h.BehindSince, before)
	}
	if err := os.Rename(root+"-away", root); err != nil {
		t.Fatal(err)
	}
	if err := k.Pass(ctx); err != nil {
		t.Fatal(err)
	}
	if h := k.Health(); h.State != api.BackupCurrent || h.Problem != "" || h.BehindSince != nil || h.ShippedSeq <= shipped {
		t.Errorf("Health with the disk back = %+v, want current past seq %d", h, shipped)
	}
}

func TestProblemOf(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("backup: ship x: %w", ErrDenied), api.BackupDenied},
		{fmt.Errorf("backup: %w", ErrNoBucket), api.BackupGone},
		{fmt.Errorf("backup: %w in x", ErrNoCopy), api.BackupGone},
		{fmt.Errorf("backup: %w", ErrUnreachable), api.BackupUnreachable},
		{&os.PathError{Op: "open", Path: "/x", Err: syscall.ENOENT}, api.BackupUnreachable},
		{&os.PathError{Op: "write", Path: "/x", Err: syscall.ENOSPC}, api.BackupFull},
		{fmt.Errorf("backup: ship x: %w", ErrConflict), api.BackupDamaged},
		{errors.New("something else"), api.BackupOther},
	} {
		if got := ProblemOf(c.err); got != c.want {
			t.Errorf("ProblemOf(%v) = %q, want %q", c.err, got, c.want)
		}
	}
}

// TestKeeper_Kick: with an Interval of an hour, a Kick after a write has
// it in the copy within Settle and a pass.
func TestKeeper_Kick(t *testing.T) {
	src := t.TempDir()
	e := openEngine(t, src)
	defer e.Close()
	tgt := mustFolder(t, t.TempDir())
	k := &Keeper{Shipper: &Shipper{Dir: src, Target: tgt, Interval: time.Hour, Logger: quiet, Key: testKey}, LogSeq: e.LastSeq}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go k.Run(ctx)
	capture(t, e, 0, 3)
	start := time.Now()
	k.Kick()
	for k.Health().ShippedSeq != e.LastSeq() {
		if time.Since(start) > 10*time.Second {
			t.Fatalf("10 s after the Kick the copy holds seq %d of %d", k.Health().ShippedSeq, e.LastSeq())
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Logf("in the copy %s after the Kick", time.Since(start).Round(time.Millisecond))
}
