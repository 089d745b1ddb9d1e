package push_test

import (
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/client"
	"github.com/sparkfamily/spark/engine/enginetest"
	"github.com/sparkfamily/spark/engine/push"
	"github.com/sparkfamily/spark/internal/faultproxy"
)

// TestPush_ReplayOverADeleteAsksThroughTrouble: a run cut before its
// checkpoint caught up replays an edit of a moment that a later op of the
// same log deleted on the target. The target refuses the edit
// (moment_deleted) and the push looks the moment up to see it is the
// same end; that look-up meets passing trouble like any other request (a
// busy proxy, a lost reply) and is asked again, not turned into a refusal
// that leaves the push incomplete. CI's Wine run of TestPush_Faults met
// exactly this: one 503 on the look-up, and "1 op(s) refused".
func TestPush_ReplayOverADeleteAsksThroughTrouble(t *testing.T) {
	src := enginetest.Start(t)
	c := clientOf(src)
	ctx := t.Context()
	id := ulid.Make().String()
	if _, _, err := c.CreateMoment(ctx, api.CreateMomentRequest{ID: id, ClientRequestID: "cap-" + id, Kind: api.KindPhoto, Caption: "first"}); err != nil {
		t.Fatal(err)
	}
	caption := "second"
	if _, _, err := c.EditMoment(ctx, id, api.EditMomentRequest{Caption: &caption}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.DeleteMoment(ctx, id); err != nil {
		t.Fatal(err)
	}
	dst := enginetest.Start(t)
	if _, err := push.Run(ctx, push.Options{Source: src.Dir, Target: clientOf(dst), StateDir: t.TempDir(), Logger: quiet()}); err != nil {
		t.Fatalf("first push: %v", err)
	}

	// Again from the start (a checkpoint that never caught up), through a
	// proxy that is busy for the first two look-ups of the moment, and
	// that answers the edit as engines before edits restored did (this
	// engine recognises the replay by its request id).
	var busy atomic.Int64
	proxy := faultproxy.New(t, dst.URL, func(r *http.Request) faultproxy.Fault {
		if r.Method == http.MethodPatch {
			return faultproxy.Fault{Kind: faultproxy.Answer, Status: http.StatusConflict, Code: api.CodeMomentDeleted, Message: "moment was deleted; it cannot be edited"}
		}
		if r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/v1/moments/") && busy.Add(1) <= 2 {
			return faultproxy.Fault{Kind: faultproxy.Answer, Status: http.StatusServiceUnavailable, Code: "unavailable", Message: "the proxy is busy"}
		}
		return faultproxy.Fault{}
	})
	opts := push.Options{Source: src.Dir, Target: client.New(proxy.URL(), dst.Token, nil), StateDir: t.TempDir(), Logger: quiet()}
	opts.Backoff.Base, opts.Backoff.Cap = time.Millisecond, 5*time.Millisecond
	st, err := push.Run(ctx, opts)
	if err != nil {
		t.Fatalf("replay through a busy look-up: %v (%+v)", err, st)
	}
	if busy.Load() < 3 {
		t.Fatalf("the moment was looked up %d times; the busy answers proved nothing", busy.Load())
	}
	if e := st.Kinds[push.KindEdit]; e.Already != 1 || e.Refused != 0 {
		t.Fatalf("the replayed edit: %+v, want already 1", e)
	}
	closeAndFsck(t, src, dst)
}
