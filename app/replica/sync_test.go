package replica

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/enginetest"
	"github.com/sparkfamily/spark/internal/racebuild"
)

// The proof of the replica: everything the engine served is read back from
// this computer once the engine is stopped, byte for byte, and the replica
// equals the engine's own mirror table by table.
func TestSync_ReadsEverythingWithTheEngineStopped(t *testing.T) {
	// 200 captures, as the issue asks, take about a minute under the race
	// detector on a shared machine: 50 there and with -short.
	n := 200
	if testing.Short() || racebuild.Enabled {
		n = 50
	}
	eng := enginetest.Start(t)
	data := t.TempDir()
	start := time.Now()
	capture(t, eng, data, n, 1000)
	extras(t, eng, "a")
	t.Logf("%d photos captured and read in %s", n, time.Since(start))
	want := serve(t, eng)

	r := openReplica(t, filepath.Join(data, "replica"), Options{PageLimit: 97})
	start = time.Now()
	res, err := r.Sync(ctxT(t), clientOf(eng))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("synced %+v in %s", res, time.Since(start))
	if !res.CaughtUp() || res.Ops == 0 || res.Copies != n-1 || res.Missing != 0 {
		t.Errorf("sync = %+v, want caught up with %d copies fetched (one moment deleted)", res, n-1)
	}
	again, err := r.Sync(ctxT(t), clientOf(eng))
	if err != nil || again.Ops != 0 || again.Copies != 0 || !again.CaughtUp() {
		t.Errorf("a second sync = %+v, %v; want nothing new", again, err)
	}
	eng.Close()

	moments, err := r.Moments(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.Marshal(moments)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.moments) {
		t.Errorf("the replica's moments differ from the engine's:\n%s", cmp.Diff(string(want.moments), string(got)))
	}
	readings := 0
	for _, m := range moments {
		for _, tu := range m.Turns {
			if tu.Status == api.TurnFinished && tu.Text != "" {
				readings++
			}
		}
	}
	if readings < n {
		t.Errorf("%d finished readings on this computer, want at least %d", readings, n)
	}
	if len(want.copies) != n-1 {
		t.Fatalf("the engine served %d copies, want %d", len(want.copies), n-1)
	}
	for sha, body := range want.copies {
		f, err := r.Copies().View(sha)
		if err != nil {
			t.Fatalf("copy %s: %v", sha, err)
		}
		b, err := io.ReadAll(f)
		f.Close()
		if err != nil || !bytes.Equal(b, body) {
			t.Errorf("copy %s: %d bytes (%v), differs from the %d bytes the engine served", sha, len(b), err, len(body))
		}
	}
	sameAsEngine(t, r, eng.Dir)
	st, err := r.State(ctxT(t))
	if err != nil || st.Seq != res.To || st.SyncedAt.IsZero() || st.Engine == "" || st.LastOp == "" {
		t.Errorf("state = %+v, %v", st, err)
	}
}

// stopAfter is an engine whose context is canceled once it has served
// pages pages of ops: the fold of the last page then refuses to start.
type stopAfter struct {
	Engine
	pages  int
	cancel context.CancelFunc
}

func (s *stopAfter) Ops(ctx context.Context, after uint64, limit int) ([]api.Op, *uint64, error) {
	ops, next, err := s.Engine.Ops(ctx, after, limit)
	if s.pages--; s.pages == 0 {
		s.cancel()
	}
	return ops, next, err
}

func TestSync_InterruptedResumes(t *testing.T) {
	eng := enginetest.Start(t)
	data := t.TempDir()
	capture(t, eng, data, 12, 2000)
	extras(t, eng, "b")
	r := openReplica(t, filepath.Join(data, "replica"), Options{PageLimit: 5})
	var last uint64
	for pages := 1; ; pages++ {
		ctx, cancel := context.WithCancel(ctxT(t))
		res, err := r.Sync(ctx, &stopAfter{Engine: clientOf(eng), pages: 2, cancel: cancel})
		cancel()
		if err == nil {
			if !res.CaughtUp() {
				t.Fatalf("sync = %+v without an error, not caught up", res)
			}
			break
		}
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("sync %d: %v, want canceled", pages, err)
		}
		st, serr := r.State(ctxT(t))
		if serr != nil {
			t.Fatal(serr)
		}
		if st.Seq != res.To || st.Seq <= last && last != 0 {
			t.Fatalf("after the cut sync %d the replica is at seq %d (result %+v, before %d)", pages, st.Seq, res, last)
		}
		last = st.Seq
		if pages > 200 {
			t.Fatal("the sync never finished")
		}
	}
	eng.Close()
	sameAsEngine(t, r, eng.Dir)
}

// tamper changes the pages an engine serves.
type tamper struct {
	Engine
	page func([]api.Op) []api.Op
}

func (tp *tamper) Ops(ctx context.Context, after uint64, limit int) ([]api.Op, *uint64, error) {
	ops, next, err := tp.Engine.Ops(ctx, after, limit)
	if err == nil && tp.page != nil {
		ops = tp.page(ops)
	}
	return ops, next, err
}

func TestSync_BadPageKeepsTheReplica(t *testing.T) {
	eng := enginetest.Start(t)
	data := t.TempDir()
	capture(t, eng, data, 4, 3000)
	r := openReplica(t, filepath.Join(data, "replica"), Options{PageLimit: 6})
	if _, err := r.Sync(ctxT(t), clientOf(eng)); err != nil {
		t.Fatal(err)
	}
	capture(t, eng, data, 4, 3100)
	before := dump(t, r)
	stBefore, _ := r.State(ctxT(t))
	for name, page := range map[string]func([]api.Op) []api.Op{
		"unknown op": func(ops []api.Op) []api.Op {
			out := append([]api.Op(nil), ops...)
			out[len(out)-1].Op = "moment.frobnicate"
			return out
		},
		"gap in seq": func(ops []api.Op) []api.Op {
			if len(ops) < 3 {
				return ops
			}
			return append(append([]api.Op(nil), ops[:1]...), ops[2:]...)
		},
		"repeated seq": func(ops []api.Op) []api.Op {
			return append(append([]api.Op(nil), ops...), ops[len(ops)-1])
		},
		"bad data": func(ops []api.Op) []api.Op {
			out := append([]api.Op(nil), ops...)
			out[len(out)-1].Data = []byte(`{"id": 12}`)
			return out
		},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := r.Sync(ctxT(t), &tamper{Engine: clientOf(eng), page: page})
			if !errors.Is(err, ErrBadPage) {
				t.Fatalf("sync = %v, want ErrBadPage", err)
			}
			t.Logf("error: %v", err)
			if d := cmp.Diff(before, dump(t, r)); d != "" {
				t.Errorf("a refused page changed the replica:\n%s", d)
			}
			if st, _ := r.State(ctxT(t)); st != stBefore {
				t.Errorf("state %+v, want %+v", st, stBefore)
			}
		})
	}
	if _, err := r.Sync(ctxT(t), clientOf(eng)); err != nil {
		t.Fatal(err)
	}
	eng.Close()
	sameAsEngine(t, r, eng.Dir)
}

func TestSync_AnotherEngineStartsAgain(t *testing.T) {
	a := enginetest.Start(t)
	b := enginetest.Start(t)
	data := t.TempDir()
	capture(t, a, data, 5, 4000)
	capture(t, b, t.TempDir(), 3, 4100)
	aCopies := serve(t, a).copies
	r := openReplica(t, filepath.Join(data, "replica"), Options{})
	if res, err := r.Sync(ctxT(t), clientOf(a)); err != nil || res.Reset {
		t.Fatalf("first sync = %+v, %v", res, err)
	}
	res, err := r.Sync(ctxT(t), clientOf(b))
	if err != nil {
		t.Fatal(err)
	}
	if !res.Reset || res.From != 0 || !res.CaughtUp() {
		t.Errorf("sync with another engine = %+v, want a reset pulled from 0", res)
	}
	for sha := range aCopies {
		if r.Copies().Has(sha) {
			t.Errorf("the other engine's copy %s was kept", sha)
		}
	}
	if n, _ := r.Copies().Usage(); n != 3 {
		t.Errorf("%d copies cached, want b's 3", n)
	}
	a.Close()
	b.Close()
	sameAsEngine(t, r, b.Dir)
}

func TestSync_EngineRestoredFromAnOlderBackup(t *testing.T) {
	eng := enginetest.Start(t)
	data := t.TempDir()
	capture(t, eng, data, 3, 5000)
	if _, err := clientOf(eng).Health(ctxT(t)); err != nil { // mints the engine's id
		t.Fatal(err)
	}
	eng.Close()
	backup := t.TempDir()
	copyDir(t, eng.Dir, backup)
	eng = enginetest.Start(t, enginetest.WithDir(eng.Dir))
	capture(t, eng, data, 3, 5100)
	r := openReplica(t, filepath.Join(data, "replica"), Options{})
	if _, err := r.Sync(ctxT(t), clientOf(eng)); err != nil {
		t.Fatal(err)
	}
	eng.Close()

	restored := enginetest.Start(t, enginetest.WithDir(backup))
	before := dump(t, r)
	stBefore, _ := r.State(ctxT(t))
	check := func(what string) {
		t.Helper()
		_, err := r.Sync(ctxT(t), clientOf(restored))
		if !errors.Is(err, ErrMustRebuild) {
			t.Fatalf("%s: sync = %v, want ErrMustRebuild", what, err)
		}
		t.Logf("%s: %v", what, err)
		if d := cmp.Diff(before, dump(t, r)); d != "" {
			t.Errorf("%s: the refused sync changed the replica:\n%s", what, d)
		}
		if st, _ := r.State(ctxT(t)); st != stBefore {
			t.Errorf("%s: state %+v, want %+v", what, st, stBefore)
		}
	}
	check("log shorter than the replica")
	// The restored engine takes new writes until its log is longer than
	// the replica's: it still does not continue it.
	capture(t, restored, t.TempDir(), 5, 5200)
	check("log replaced")

	res, err := r.Rebuild(ctxT(t), clientOf(restored))
	if err != nil || !res.CaughtUp() || res.From != 0 {
		t.Fatalf("rebuild = %+v, %v", res, err)
	}
	restored.Close()
	sameAsEngine(t, r, backup)
}

func TestOpen_LockedAndReopened(t *testing.T) {
	dir := t.TempDir()
	r := openReplica(t, dir, Options{})
	if _, err := Open(ctxT(t), dir, Options{Logger: quiet}); !errors.Is(err, ErrLocked) {
		t.Fatalf("a second Open = %v, want ErrLocked", err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	openReplica(t, dir, Options{})
}

// badCopies serves other bytes than the log records for every small copy.
type badCopies struct{ Engine }

func (b badCopies) GetMedia(ctx context.Context, id string) (io.ReadCloser, error) {
	body, err := b.Engine.GetMedia(ctx, id)
	if err != nil {
		return nil, err
	}
	data, err := io.ReadAll(body)
	body.Close()
	if err != nil {
		return nil, err
	}
	data[len(data)/2] ^= 0xff
	return io.NopCloser(bytes.NewReader(data)), nil
}

func TestSync_CopyWithAnotherChecksumIsNotKept(t *testing.T) {
	eng := enginetest.Start(t)
	data := t.TempDir()
	capture(t, eng, data, 2, 7000)
	r := openReplica(t, filepath.Join(data, "replica"), Options{})
	_, err := r.Sync(ctxT(t), badCopies{clientOf(eng)})
	var ce *ChecksumError
	if !errors.As(err, &ce) {
		t.Fatalf("sync = %v, want a ChecksumError", err)
	}
	t.Logf("error: %v", err)
	if n, _ := r.Copies().Usage(); n != 0 {
		t.Errorf("%d copies cached from bad bytes", n)
	}
	res, err := r.Sync(ctxT(t), clientOf(eng))
	if err != nil || res.Copies != 2 || !res.CaughtUp() {
		t.Errorf("sync with good bytes = %+v, %v; want both copies fetched", res, err)
	}
}
