package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/mirror"
)

// holdFold keeps the mirror from folding (a transaction of its own holds
// the fold's connection) until the returned function is called.
func holdFold(t *testing.T, e *Engine) (release func()) {
	t.Helper()
	holding, done := make(chan struct{}), make(chan error, 1)
	free := make(chan struct{})
	go func() {
		done <- e.mirror.ApplyWith(context.Background(), nil, func(mirror.Exec) error {
			close(holding)
			<-free
			return nil
		})
	}()
	<-holding
	var once bool
	release = func() {
		if once {
			return
		}
		once = true
		close(free)
		if err := <-done; err != nil {
			t.Errorf("the held transaction: %v", err)
		}
	}
	t.Cleanup(release)
	return release
}

// TestEngine_CreateAnsweredBeforeFold: a create, a lone one too, is
// answered once its op is durable in the log, with the mirror's fold held
// back; a repeat of it,
// and a read of the moment, wait for the fold and see it; and a crash
// between the answer and the fold loses nothing: the engine opened on what
// the disk holds folds the op from the log.
func TestEngine_CreateAnsweredBeforeFold(t *testing.T) {
	dir := t.TempDir()
	e := openEngine(t, dir)
	mustCreate(t, e, api.CreateMomentRequest{Kind: api.KindNote, Caption: "before"})
	// A lone create is answered at its fsync too.
	release := holdFold(t, e)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req := api.CreateMomentRequest{ClientRequestID: "phone-1", Kind: api.KindNote, Caption: "milk"}
	type answer struct {
		mo      *api.Moment
		created bool
		err     error
	}
	first := make(chan answer, 1)
	go func() {
		mo, created, err := e.CreateMoment(ctx, req)
		first <- answer{mo, created, err}
	}()
	var mo *api.Moment
	select {
	case a := <-first:
		if a.err != nil || !a.created {
			t.Fatalf("CreateMoment with the fold held = %+v; want it created", a)
		}
		mo = a.mo
	case <-time.After(5 * time.Second):
		release()
		<-first
		t.Fatal("CreateMoment was not answered while the fold was held: it waited for the fold")
	}
	if folded, logged := e.mirror.LastSeq(ctx); folded >= e.log.LastSeq() {
		t.Fatalf("the mirror has folded seq %d, the log ends at %d: the fold was not held", folded, logged)
	}

	// The crash: what the disk holds now, the fold not done.
	crashed := t.TempDir()
	for _, name := range []string{LogFile, MirrorFile, MirrorFile + "-wal"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			copyFile(t, filepath.Join(dir, name), filepath.Join(crashed, name))
		}
	}

	// A repeat and a read wait for the fold, then see the create.
	repeat := make(chan answer, 1)
	go func() {
		mo, created, err := e.CreateMoment(ctx, req)
		repeat <- answer{mo, created, err}
	}()
	read := make(chan answer, 1)
	go func() {
		mo, err := e.Moment(ctx, mo.ID)
		read <- answer{mo: mo, err: err}
	}()
	select {
	case a := <-repeat:
		t.Fatalf("the repeat was answered (%+v) before the fold", a)
	case a := <-read:
		t.Fatalf("the read was answered (%+v) before the fold", a)
	case <-time.After(50 * time.Millisecond):
	}
	release()
	if a := <-repeat; a.err != nil || a.created || a.mo.ID != mo.ID {
		t.Fatalf("the repeat = %+v, want moment %s, not created", a, mo.ID)
	}
	if a := <-read; a.err != nil || a.mo.Caption != "milk" {
		t.Fatalf("the read = %+v, want moment %s", a, mo.ID)
	}

	e2 := openEngine(t, crashed)
	got, err := e2.Moment(ctx, mo.ID)
	if err != nil {
		t.Fatalf("after the crash: %v", err)
	}
	if diff := cmp.Diff(mo, got); diff != "" {
		t.Errorf("the moment after the crash (-answered +found):\n%s", diff)
	}
	again, created, err := e2.CreateMoment(ctx, req)
	if err != nil || created || again.ID != mo.ID {
		t.Fatalf("the repeat after the crash = %v, %v, %v; want moment %s, not created", again, created, err, mo.ID)
	}
}

// TestEngine_ConcurrentCreatesPipelined: many creates at once are
// answered at their fsync and folded behind the log; each is found by its
// repeat and by a read right after its answer.
func TestEngine_ConcurrentCreatesPipelined(t *testing.T) {
	e := openEngine(t, t.TempDir())
	const writers, each = 8, 25
	errs := make(chan error, writers)
	for w := range writers {
		go func() {
			for i := range each {
				req := api.CreateMomentRequest{ClientRequestID: fmt.Sprintf("w%d-%d", w, i), Kind: api.KindNote, Caption: "many at once"}
				mo, created, err := e.CreateMoment(ctxT(t), req)
				if err != nil || !created {
					errs <- fmt.Errorf("create %s: %v, %v", req.ClientRequestID, created, err)
					return
				}
				if _, err := e.Moment(ctxT(t), mo.ID); err != nil {
					errs <- fmt.Errorf("read %s right after its create: %w", mo.ID, err)
					return
				}
				again, created, err := e.CreateMoment(ctxT(t), req)
				if err != nil || created || again.ID != mo.ID {
					errs <- fmt.Errorf("repeat of %s: %v, %v, %v", req.ClientRequestID, again, created, err)
					return
				}
			}
			errs <- nil
		}()
	}
	for range writers {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if got := e.log.LastSeq(); got != writers*each+0 {
		t.Errorf("the log holds %d ops, want %d (one per create, none per repeat)", got, writers*each)
	}
}
