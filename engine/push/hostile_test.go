package push_test

import (
	"errors"
	"fmt"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/client"
	"github.com/sparkfamily/spark/engine/enginetest"
	"github.com/sparkfamily/spark/engine/mirror"
	"github.com/sparkfamily/spark/engine/push"
	"github.com/sparkfamily/spark/internal/hostile"
	"github.com/sparkfamily/spark/internal/retry"
)

// hostileSource is a fake engine (internal/hostile) to push from: health
// tells seq, and each page of ops holds what op(seq) makes, for every seq
// after the page's after, up to the limit asked: a log without end.
func hostileSource(t *testing.T, seq uint64, op func(seq uint64) api.Op) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	h := &hostile.Engine{Seq: seq, Page: hostile.Log(seq, op)}
	return h.Start(t), &h.Pages
}

// unfinishedTurn is a turn.start never finished, on moment 1.
func unfinishedTurn(seq uint64) api.Op {
	return hostile.Op(seq, api.OpTurnStart, mirror.TurnStart{ID: fmt.Sprintf("t-%d", seq), MomentID: "01JD0000000000000000000001", Mode: api.ModePractical})
}

// runHostile pushes from srv to a real engine and returns the push's
// error, failing the test if the push is still running after limit.
func runHostile(t *testing.T, srv *httptest.Server, limit time.Duration) (push.Stats, error, *enginetest.Engine) {
	t.Helper()
	dst := enginetest.Start(t)
	fast := retry.Backoff{Base: time.Millisecond, Cap: 10 * time.Millisecond}
	type result struct {
		st  push.Stats
		err error
	}
	done := make(chan result, 1)
	ctx := t.Context()
	go func() {
		st, err := push.Run(ctx, push.Options{From: push.Remote(client.New(srv.URL, "tok", nil), fast), Target: clientOf(dst), Logger: quiet(), Backoff: fast})
		done <- result{st, err}
	}()
	select {
	case r := <-done:
		return r.st, r.err, dst
	case <-time.After(limit):
		t.Fatalf("the push from a hostile engine still runs after %s", limit)
	}
	return push.Stats{}, nil, nil
}

// A source that claims a log of 2^40 ops is refused at once, before a
// page of it is read.
func TestPush_AbsurdSeqRefused(t *testing.T) {
	srv, pages := hostileSource(t, 1<<40, unfinishedTurn)
	_, err, _ := runHostile(t, srv, 20*time.Second)
	// The source's errors do not unwrap (sourceError): its message says.
	if err == nil || !strings.Contains(err.Error(), client.ErrBadAnswer.Error()) {
		t.Fatalf("push from a log claiming seq 2^40 = %v, want the client's ErrBadAnswer", err)
	}
	if n := pages.Load(); n != 0 {
		t.Errorf("the push read %d pages, want none", n)
	}
}

// A source whose log leaves readings unfinished without end stops the
// push once it holds more than any engine leaves, instead of holding
// them all.
func TestPush_EndlessUnfinishedTurnsRefused(t *testing.T) {
	t.Cleanup(push.SetMaxPending(5_000))
	srv, _ := hostileSource(t, 1<<31, unfinishedTurn)
	st, err, _ := runHostile(t, srv, 60*time.Second)
	if err == nil {
		t.Fatalf("push of endless unfinished readings = nil error (%+v)", st)
	}
	if !errors.Is(err, push.ErrTooManyPending) {
		t.Errorf("push of endless unfinished readings = %v, want ErrTooManyPending", err)
	}
	t.Logf("error: %v", err)
}

// An op the engine would refuse stops the push before anything of it
// reaches the target.
func TestPush_HostileOpsRefused(t *testing.T) {
	for name, d := range map[string]mirror.MomentCreate{
		"path as moment id": {ID: "../../etc/passwd", Kind: api.KindNote},
		"evil kind":         {ID: "01JD0000000000000000000001", Kind: "evil"},
	} {
		t.Run(name, func(t *testing.T) {
			srv, _ := hostileSource(t, 1, func(seq uint64) api.Op { return hostile.Op(seq, api.OpMomentCreate, d) })
			st, err, dst := runHostile(t, srv, 20*time.Second)
			if err == nil || !errors.Is(err, mirror.ErrBadOp) {
				t.Fatalf("push of %s = %v (%+v), want mirror.ErrBadOp", name, err, st)
			}
			if ms := dst.Moments(t); len(ms) != 0 {
				t.Errorf("the target holds %d moments, want none", len(ms))
			}
		})
	}
}

// A page of ops far larger than any engine's stops the push as it is
// read, instead of being held whole.
func TestPush_HugePageRefused(t *testing.T) {
	huge := hostile.Op(1, api.OpMomentCreate, mirror.MomentCreate{ID: "01JD0000000000000000000001", Kind: api.KindNote, Caption: strings.Repeat("x", 20<<20)})
	srv, _ := hostileSource(t, 1, func(seq uint64) api.Op { return huge })
	st, err, dst := runHostile(t, srv, 60*time.Second)
	if err == nil || !strings.Contains(err.Error(), client.ErrTooLarge.Error()) {
		t.Fatalf("push of a 20 MiB page = %v (%+v), want the client's ErrTooLarge", err, st)
	}
	if ms := dst.Moments(t); len(ms) != 0 {
		t.Errorf("the target holds %d moments, want none", len(ms))
	}
}
