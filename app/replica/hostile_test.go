package replica

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/client"
	"github.com/sparkfamily/spark/engine/mirror"
	"github.com/sparkfamily/spark/internal/hostile"
)

// createOp is a moment.create at seq, as a hostile engine serves it.
func createOp(seq uint64, d mirror.MomentCreate) api.Op {
	return hostile.Op(seq, api.OpMomentCreate, d)
}

const hostileMoment = "01JD0000000000000000000001"

// An op the engine would refuse (a path for an id, an unknown kind, a
// 3 MiB caption) stops the sync with a clear error, and nothing of its
// page is stored.
func TestSync_HostileOpsRefused(t *testing.T) {
	for name, d := range map[string]mirror.MomentCreate{
		"path as moment id": {ID: "../../etc/passwd", Kind: api.KindNote},
		"evil kind":         {ID: hostileMoment, Kind: "evil"},
		"3 MiB caption":     {ID: hostileMoment, Kind: api.KindNote, Caption: strings.Repeat("x", 3<<20)},
	} {
		t.Run(name, func(t *testing.T) {
			good := createOp(1, mirror.MomentCreate{ID: "01JD0000000000000000000002", Kind: api.KindNote, Caption: "fine"})
			bad := createOp(2, d)
			h := &hostile.Engine{Seq: 2, Page: func(w io.Writer, after uint64, limit int) {
				w.Write(hostile.OpsJSON([]api.Op{good, bad}[after:], nil))
			}}
			srv := h.Start(t)
			r := openReplica(t, t.TempDir(), Options{Logger: quiet})
			_, err := r.Sync(ctxT(t), client.New(srv.URL, "tok", nil))
			if err == nil {
				t.Fatalf("sync of a page holding %s = nil error, want it refused", name)
			}
			if !errors.Is(err, ErrBadPage) || !errors.Is(err, mirror.ErrBadOp) {
				t.Errorf("sync = %v, want ErrBadPage and mirror.ErrBadOp", err)
			}
			if len(err.Error()) > 1000 {
				t.Errorf("the error is %d bytes long, want a sentence", len(err.Error()))
			}
			if st, _ := r.State(ctxT(t)); st.Seq != 0 {
				t.Errorf("the replica is at seq %d after a refused page, want 0: nothing kept", st.Seq)
			}
			if m, err := r.Moment(ctxT(t), d.ID); err == nil {
				t.Errorf("the replica holds moment %.40q (kind %q)", m.ID, m.Kind)
			}
		})
	}
}

// A page of ops far larger than any engine's stops the sync as it is
// read; nothing is stored.
func TestSync_HugePageRefused(t *testing.T) {
	var written atomic.Int64
	h := &hostile.Engine{Seq: 1, Page: func(w io.Writer, after uint64, limit int) {
		// A moment.create whose caption is 64 MiB: written as it goes.
		head := fmt.Sprintf(`{"ops":[{"seq":1,"at":"2026-01-01T00:00:00Z","op":"moment.create","data":{"id":%q,"kind":"note","caption":"`, hostileMoment)
		io.WriteString(w, head)
		chunk := []byte(strings.Repeat("A", 64<<10))
		for range 1024 {
			n, err := w.Write(chunk)
			written.Add(int64(n))
			if err != nil {
				return
			}
		}
		io.WriteString(w, `"}}],"next":null}`)
	}}
	srv := h.Start(t)
	r := openReplica(t, t.TempDir(), Options{Logger: quiet})
	_, err := r.Sync(ctxT(t), client.New(srv.URL, "tok", nil))
	if err == nil || !errors.Is(err, client.ErrTooLarge) {
		t.Fatalf("sync of a 64 MiB page = %v, want ErrTooLarge", err)
	}
	if st, _ := r.State(ctxT(t)); st.Seq != 0 {
		t.Errorf("the replica is at seq %d, want 0", st.Seq)
	}
	srv.CloseClientConnections()
	if n := written.Load(); n > 2*client.MaxAnswerBytes {
		t.Errorf("the engine wrote %d bytes before the sync stopped reading", n)
	}
}

// An engine whose health claims a seq no log reaches is refused at once.
func TestSync_AbsurdSeqRefused(t *testing.T) {
	var pages atomic.Int64
	h := &hostile.Engine{Seq: 1 << 40, Page: func(w io.Writer, after uint64, limit int) {
		pages.Add(1)
		ops := make([]api.Op, 0, limit)
		for i := range uint64(max(limit, 1)) {
			ops = append(ops, createOp(after+1+i, mirror.MomentCreate{ID: fmt.Sprintf("01JD%022d", after+1+i), Kind: api.KindNote}))
		}
		next := after + uint64(len(ops))
		w.Write(hostile.OpsJSON(ops, &next))
	}}
	srv := h.Start(t)
	r := openReplica(t, t.TempDir(), Options{Logger: quiet, PageLimit: 100})
	ctx := ctxT(t)
	done := make(chan error, 1)
	go func() { _, err := r.Sync(ctx, client.New(srv.URL, "tok", nil)); done <- err }()
	select {
	case err := <-done:
		if err == nil || !errors.Is(err, client.ErrBadAnswer) {
			t.Fatalf("sync of an engine claiming seq 2^40 = %v, want ErrBadAnswer", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("sync of an engine claiming seq 2^40 still runs after 20s (%d pages read)", pages.Load())
	}
	if n := pages.Load(); n != 0 {
		t.Errorf("the sync read %d pages of a log claiming seq 2^40, want none", n)
	}
}

// An engine whose log ends well before the seq its health claims is
// refused: what it served is kept, and the sync says so.
func TestSync_ShortLogRefused(t *testing.T) {
	h := &hostile.Engine{Seq: 1000, Page: func(w io.Writer, after uint64, limit int) {
		var ops []api.Op
		for s := after + 1; s <= 3; s++ {
			ops = append(ops, createOp(s, mirror.MomentCreate{ID: fmt.Sprintf("01JD%022d", s), Kind: api.KindNote}))
		}
		w.Write(hostile.OpsJSON(ops, nil))
	}}
	srv := h.Start(t)
	r := openReplica(t, t.TempDir(), Options{Logger: quiet})
	res, err := r.Sync(ctxT(t), client.New(srv.URL, "tok", nil))
	if err == nil || !errors.Is(err, ErrShortLog) {
		t.Fatalf("sync of a log claiming seq 1000 and ending at 3 = %+v, %v; want ErrShortLog", res, err)
	}
}

// A redirect to another port is not followed: the token stays with the
// engine it was given for.
func TestSync_RedirectToAnotherPortRefused(t *testing.T) {
	osrv := hostile.NewWitness(t)
	srv := hostile.Redirecting(t, 0, osrv.URL)
	r := openReplica(t, t.TempDir(), Options{Logger: quiet})
	_, err := r.Sync(ctxT(t), client.New(srv.URL, "secret-token", nil))
	if err == nil || !errors.Is(err, client.ErrRedirect) {
		t.Errorf("sync redirected to another port = %v, want ErrRedirect", err)
	}
	for _, a := range osrv.Tokens() {
		if a != "" {
			t.Errorf("the other port got Authorization %q", a)
		}
	}
}
