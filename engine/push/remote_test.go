package push_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/client"
	"github.com/sparkfamily/spark/engine/enginetest"
	"github.com/sparkfamily/spark/engine/oplog"
	"github.com/sparkfamily/spark/engine/push"
	"github.com/sparkfamily/spark/internal/retry"
)

// stopAfter lets a real source through until n ops were read, then ends
// the run's context: a push left midway.
type stopAfter struct {
	push.Source
	n      int64
	read   atomic.Int64
	cancel context.CancelFunc
}

func (s *stopAfter) Scan(ctx context.Context, after uint64, fn func(oplog.Record) error) error {
	return s.Source.Scan(ctx, after, func(r oplog.Record) error {
		if s.read.Add(1) == s.n {
			s.cancel()
		}
		return fn(r)
	})
}

// TestPush_FromRemote: the way back. The source is a real engine read
// through the contract (its log page by page, its media by id), behind a
// proxy losing replies; the push is left midway and resumed from its
// checkpoint; afterwards the target holds exactly the source's corpus, its
// Pippa was never asked, and a repeat sends nothing.
func TestPush_FromRemote(t *testing.T) {
	src := enginetest.Start(t)
	fillSource(t, src, 30)
	dst := enginetest.Start(t)
	proxy := newLossyProxy(t, src.URL, 0.1, 11)
	fast := retry.Backoff{Base: time.Millisecond, Cap: 10 * time.Millisecond}
	from := func() push.Source { return push.Remote(client.New(proxy.URL(), src.Token, nil), fast) }
	state := t.TempDir()
	opts := push.Options{Target: clientOf(dst), StateDir: state, Logger: quiet(), CheckpointEvery: time.Millisecond, Backoff: fast}

	if n, err := push.MissingFrom(t.Context(), from(), clientOf(dst)); err != nil || n != 28 {
		t.Fatalf("missing before the push: %d, %v; want 28", n, err)
	}
	last := uint64(src.OpCount(t, ""))
	ctx, cancel := context.WithCancel(t.Context())
	left := opts
	left.From = &stopAfter{Source: from(), n: int64(last / 2), cancel: cancel}
	st, err := push.Run(ctx, left)
	cancel()
	if !errors.Is(err, context.Canceled) || st.Done == 0 || st.Done >= st.LastSeq {
		t.Fatalf("push left midway: %v, done %d of %d", err, st.Done, st.LastSeq)
	}

	opts.From = from()
	st, err = push.Run(t.Context(), opts)
	if err != nil || !st.Complete {
		t.Fatalf("resumed push: %v (%+v)", err, st)
	}
	if st.StartSeq == 0 || st.SourceID == "" || st.TargetID == "" {
		t.Fatalf("the resumed push did not go on from the checkpoint: %+v", st)
	}
	if proxy.lost.Load() == 0 {
		t.Fatal("the proxy lost no reply; the test proved less than it says")
	}
	checkSame(t, src, dst)
	if n, err := push.MissingFrom(t.Context(), from(), clientOf(dst)); err != nil || n != 0 {
		t.Fatalf("missing after the push: %d, %v", n, err)
	}

	opts.From = from()
	again, err := push.Run(t.Context(), opts)
	if err != nil || again.StartSeq != st.LastSeq || len(again.Kinds) > 1 {
		t.Fatalf("second run: %v, %+v", err, again)
	}
	// Without the checkpoint the whole log is read again; nothing new is
	// written.
	opts.StateDir, opts.From = "", from()
	full, err := push.Run(t.Context(), opts)
	if err != nil || full.Kinds[push.KindMoment].Sent != 0 || full.Kinds[push.KindMedia].Sent != 0 || full.Kinds[push.KindReading].Sent != 0 {
		t.Fatalf("replay without checkpoint: %v, %+v", err, full)
	}
	checkSame(t, src, dst)
	closeAndFsck(t, src, dst)
}

// flipProxy serves a real engine with one byte of every media file
// changed on the way.
func flipProxy(t *testing.T, target string) string {
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.ModifyResponse = func(r *http.Response) error {
		if strings.HasPrefix(r.Request.URL.Path, "/v1/media/") && r.Request.Method == http.MethodGet {
			r.Body = struct {
				io.Reader
				io.Closer
			}{&flipFirst{r: r.Body}, r.Body}
		}
		return nil
	}
	s := httptest.NewServer(rp)
	t.Cleanup(s.Close)
	return s.URL
}

type flipFirst struct {
	r    io.Reader
	done bool
}

func (f *flipFirst) Read(b []byte) (int, error) {
	n, err := f.r.Read(b)
	if n > 0 && !f.done {
		b[0] ^= 0xff
		f.done = true
	}
	return n, err
}

// TestPush_FromRemoteChecksMedia: bytes that do not match the SHA-256 the
// source's log records are never stored on the target, and the push says
// so instead of claiming it is done.
func TestPush_FromRemoteChecksMedia(t *testing.T) {
	src := enginetest.Start(t)
	fillSource(t, src, 6)
	dst := enginetest.Start(t)
	from := push.Remote(client.New(flipProxy(t, src.URL), src.Token, nil), retry.Backoff{})
	st, err := push.Run(t.Context(), push.Options{From: from, Target: clientOf(dst), Logger: quiet()})
	if err == nil || st.Complete || st.Kinds[push.KindMedia].Sent != 0 || !strings.Contains(err.Error(), "do not match") {
		t.Fatalf("push of damaged bytes: %v, %+v", err, st)
	}
	if n := dst.OpCount(t, "media.put"); n != 0 {
		t.Fatalf("target stored %d media from damaged bytes", n)
	}
}

// TestPush_RoundTrip: a corpus pushed to another engine and then brought
// back from it (Spark switched to the family engine and back) finds
// everything already there: a quick recall's moment, made on the first
// engine by the recall itself, is the same moment coming back, not a
// request id reused.
func TestPush_RoundTrip(t *testing.T) {
	src := enginetest.Start(t)
	fillSource(t, src, 12)
	dst := enginetest.Start(t)
	if st, err := push.Run(t.Context(), push.Options{Source: src.Dir, Target: clientOf(dst), Logger: quiet()}); err != nil {
		t.Fatalf("push there: %v (%+v)", err, st)
	}
	ops := []string{api.OpMomentCreate, api.OpMediaPut, api.OpTurnStart, api.OpTurnFinish, api.OpMomentDelete, api.OpMomentEdit}
	before := map[string]int{}
	for _, op := range ops {
		before[op] = src.OpCount(t, op)
	}
	ids := createdIDs(t, clientOf(src))
	want := corpus(t, clientOf(src), ids)
	calls := src.Pippa.Calls()
	st, err := push.Run(t.Context(), push.Options{From: push.Remote(clientOf(dst), retry.Backoff{}), Target: clientOf(src), Logger: quiet()})
	if err != nil || !st.Complete {
		t.Fatalf("push back: %v (%+v)", err, st)
	}
	for _, k := range []push.Kind{push.KindMoment, push.KindMedia, push.KindReading, push.KindDelete, push.KindAsked} {
		if c := st.Kinds[k]; c.Sent != 0 {
			t.Errorf("push back sent %d %s; all were there", c.Sent, k)
		}
	}
	// A phrase kept and removed again on the way is kept and removed
	// again (the log is replayed); everything else writes nothing.
	for _, op := range ops {
		if n := src.OpCount(t, op); n != before[op] {
			t.Errorf("%s: the first engine's log went from %d to %d on the way back", op, before[op], n)
		}
	}
	if got := corpus(t, clientOf(src), ids); got != want {
		t.Fatalf("the first engine changed on the way back:\n--- before\n%s\n--- after\n%s", want, got)
	}
	if n := src.Pippa.Calls(); n != calls {
		t.Errorf("the first engine's Pippa asked %d more times", n-calls)
	}
}
