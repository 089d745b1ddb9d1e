package server_test

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/enginetest"
)

// fileSize is the size of a file of the engine's data directory.
func fileSize(t *testing.T, e *enginetest.Engine, name string) int64 {
	t.Helper()
	fi, err := os.Stat(filepath.Join(e.Dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// health reads GET /v1/health.
func health(t *testing.T, e *enginetest.Engine) api.Health {
	t.Helper()
	var h api.Health
	call(t, e, "GET", "/v1/health", nil).want(t, http.StatusOK, &h)
	return h
}

// wantUnavailable checks a write refused while the engine cannot write:
// 503 unavailable with a Retry-After of whole seconds.
func wantUnavailable(t *testing.T, a answer) {
	t.Helper()
	a.wantError(t, http.StatusServiceUnavailable, api.CodeUnavailable)
	secs, err := strconv.Atoi(a.Header.Get("Retry-After"))
	if err != nil || secs < 1 {
		t.Fatalf("Retry-After %q, want a number of seconds", a.Header.Get("Retry-After"))
	}
}

// waitHealthy waits for the engine to take writes again, by itself.
func waitHealthy(t *testing.T, e *enginetest.Engine) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		h := health(t, e)
		if h.OK {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the engine did not recover once it could write again: %+v", h)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// checkCorpus checks that the engine serves exactly these moments and a log
// of gapless seqs.
func checkCorpus(t *testing.T, e *enginetest.Engine, ids []string) {
	t.Helper()
	var page api.MomentsPage
	call(t, e, "GET", "/v1/moments?limit=200", nil).want(t, http.StatusOK, &page)
	have := map[string]bool{}
	for _, m := range page.Moments {
		have[m.ID] = true
	}
	for _, id := range ids {
		if !have[id] {
			t.Fatalf("moment %s, answered before the failure, is gone", id)
		}
	}
	if len(page.Moments) != len(ids) {
		t.Fatalf("%d moments served, want %d", len(page.Moments), len(ids))
	}
	var ops api.OpsPage
	call(t, e, "GET", "/v1/ops?limit=1000", nil).want(t, http.StatusOK, &ops)
	for i, op := range ops.Ops {
		if op.Seq != uint64(i+1) {
			t.Fatalf("op %d has seq %d: the log has a gap", i, op.Seq)
		}
	}
}

// duringFailure is what the create sent while writes fail is answered.
type duringFailure int

const (
	// refused: the log's own write fails; nothing of the create is kept,
	// and it is answered 503.
	refused duringFailure = iota
	// acknowledged: the log's write and fsync succeed and the mirror's
	// fold fails; the create is answered at its fsync (201) and is never
	// lost.
	acknowledged
	// either: which write fails first depends on the disk (a tmpfs).
	either
)

// diskFullScenario runs the disk-full story on an engine whose writes fail
// between fail() and heal(). A create whose log write fails gets 503 with
// Retry-After and nothing of it is kept; one whose log write succeeds is
// answered at its fsync, even if its fold into the mirror then fails, and
// is never lost. While anything cannot be written health says ok false and
// why, new writes get 503; while the mirror lacks an acknowledged op, a
// read that must see it gets 503; otherwise reads are served. Once the
// disk heals the engine takes writes again by itself, the mirror catches
// up and the acknowledged op shows. wantReason is a word of the reason
// /v1/health must give.
func diskFullScenario(t *testing.T, e *enginetest.Engine, want duringFailure, fail, heal func(), wantReason string) {
	var ids []string
	for i := range 3 {
		ids = append(ids, createMoment(t, e, api.CreateMomentRequest{ClientRequestID: fmt.Sprintf("before-%d", i), Caption: "before"}).ID)
	}
	if h := health(t, e); !h.OK {
		t.Fatalf("unhealthy before the failure: %+v", h)
	}

	fail()
	failed := api.CreateMomentRequest{Kind: api.KindNote, ClientRequestID: "during", Caption: strings.Repeat("during the failure ", 100)}
	a := call(t, e, "POST", "/v1/moments", failed)
	acked := ""
	switch {
	case a.Status == http.StatusCreated && want != refused:
		var mr api.MomentResponse
		a.want(t, http.StatusCreated, &mr)
		acked = mr.Moment.ID
	case want == acknowledged:
		t.Fatalf("the create whose log write succeeds: status %d, want 201 at its fsync: %.300s", a.Status, a.Body)
	default:
		wantUnavailable(t, a)
	}
	h := health(t, e)
	if h.OK || !strings.Contains(h.Reason, wantReason) {
		t.Fatalf("health after a failed write: %+v; want ok false and a reason naming %q", h, wantReason)
	}
	// Later writes are refused up front, the upload before its body is
	// read (and its connection closed). The upload waits for the answer
	// before its body, as Expect: 100-continue asks: sent at once, the body
	// met the connection closed under it and the answer was lost with it
	// (CI, once: "readfrom tcp ...").
	wantUnavailable(t, call(t, e, "POST", "/v1/moments", api.CreateMomentRequest{Kind: api.KindNote}))
	up := call(t, e, "PUT", mediaPath(newID(), ids[0], "copy"), bytes.Repeat([]byte{1}, 256<<10), "Content-Type", "image/jpeg", "Expect", "100-continue")
	wantUnavailable(t, up)
	if acked == "" {
		// Reads are served.
		checkCorpus(t, e, ids)
		call(t, e, "GET", "/v1/moments/"+ids[0], nil).want(t, http.StatusOK, nil)
	} else {
		// The mirror lacks the acknowledged create: a read that must see
		// it is refused rather than answered without it.
		wantUnavailable(t, call(t, e, "GET", "/v1/moments/"+acked, nil))
		wantUnavailable(t, call(t, e, "GET", "/v1/moments?limit=200", nil))
	}

	heal()
	waitHealthy(t, e)
	if acked != "" {
		// The fold caught up by itself: the acknowledged create shows.
		var got api.MomentResponse
		call(t, e, "GET", "/v1/moments/"+acked, nil).want(t, http.StatusOK, &got)
		if got.Moment.Caption != failed.Caption {
			t.Fatalf("the acknowledged create reads back %+v", got.Moment)
		}
	}
	// The outbox sends the write again; it is taken (or found, if the log
	// had it).
	var mr api.MomentResponse
	a = call(t, e, "POST", "/v1/moments", failed)
	if a.Status != http.StatusCreated && a.Status != http.StatusOK {
		t.Fatalf("the write sent again after recovery: status %d: %.300s", a.Status, a.Body)
	}
	a.want(t, a.Status, &mr)
	if acked != "" && (a.Status != http.StatusOK || mr.Moment.ID != acked) {
		t.Fatalf("the acknowledged create sent again: status %d, moment %s; want 200 and %s", a.Status, mr.Moment.ID, acked)
	}
	ids = append(ids, mr.Moment.ID)
	ids = append(ids, createMoment(t, e, api.CreateMomentRequest{Caption: "after"}).ID)
	checkCorpus(t, e, ids)

	// And a restart finds it all.
	dir := e.Dir
	e.Close()
	e2 := enginetest.Start(t, enginetest.WithoutSeat(), enginetest.WithDir(dir))
	checkCorpus(t, e2, ids)
}
