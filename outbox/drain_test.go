package outbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/enginetest"
	"github.com/sparkfamily/spark/internal/poll"
)

// startDrain runs o's drain until the end of the test.
func startDrain(tb testing.TB, o *Outbox) {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- o.Run(ctx) }()
	tb.Cleanup(func() {
		cancel()
		if err := <-done; err != nil && !errors.Is(err, ErrClosed) {
			tb.Errorf("Run: %v", err)
		}
	})
}

// waitFor polls cond until it holds or the timeout passes.
func waitFor(tb testing.TB, timeout time.Duration, what string, cond func() bool) {
	tb.Helper()
	poll.Until(tb, timeout, what, cond)
}

// settle waits until nothing is pending and returns the counts.
func settle(tb testing.TB, o *Outbox, timeout time.Duration) Counts {
	tb.Helper()
	var c Counts
	waitFor(tb, timeout, "the drain to settle", func() bool {
		var err error
		c, err = o.Counts(context.Background())
		if err != nil {
			tb.Fatal(err)
		}
		return c.Pending == 0
	})
	return c
}

// recorder collects an outbox's events.
type recorder struct {
	mu  sync.Mutex
	evs []Event
}

func record(tb testing.TB, o *Outbox) *recorder {
	ch, stop := o.Subscribe()
	r := &recorder{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for e := range ch {
			r.mu.Lock()
			r.evs = append(r.evs, e)
			r.mu.Unlock()
		}
	}()
	tb.Cleanup(func() { stop(); <-done })
	return r
}

func (r *recorder) of(id string, kinds ...EventKind) []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []Event
	for _, e := range r.evs {
		if e.EntryID != id {
			continue
		}
		for _, k := range kinds {
			if e.Kind == k {
				out = append(out, e)
			}
		}
	}
	return out
}

// checkDelivered checks that the engine holds each entry whole: the moment,
// both files with the outbox's SHA-256 and one practical turn.
func checkDelivered(tb testing.TB, eng *enginetest.Engine, ents []Entry) {
	tb.Helper()
	ctx := context.Background()
	for _, e := range ents {
		m, err := eng.Engine.Moment(ctx, e.MomentID)
		if err != nil {
			tb.Errorf("entry %s: moment %s: %v", e.ID, e.MomentID, err)
			continue
		}
		if m.Copy == nil || m.Copy.ID != e.CopyID || m.Copy.SHA256 != e.CopySHA256 || m.Copy.Size != e.CopySize {
			tb.Errorf("entry %s: copy = %+v, want %s sha %s", e.ID, m.Copy, e.CopyID, e.CopySHA256)
		}
		if m.Original == nil || m.Original.ID != e.OriginalID || m.Original.SHA256 != e.SHA256 || m.Original.Size != e.Size {
			tb.Errorf("entry %s: original = %+v, want %s sha %s", e.ID, m.Original, e.OriginalID, e.SHA256)
		}
		if len(m.Turns) != 1 || m.Turns[0].ClientRequestID != e.TurnRequestID || m.Turns[0].Mode != api.ModePractical {
			tb.Errorf("entry %s: turns = %+v, want one practical turn %s", e.ID, m.Turns, e.TurnRequestID)
		}
	}
}

func entries(tb testing.TB, o *Outbox) []Entry {
	tb.Helper()
	ents, err := o.Entries(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	return ents
}

func TestDrain_Delivers(t *testing.T) {
	eng := enginetest.Start(t)
	proxy := newFaultProxy(t, eng.URL, nil)
	o := openTest(t, "", testOptions())
	rec := record(t, o)
	src := t.TempDir()
	var paths []string
	for i := range 5 {
		paths = append(paths, writePhoto(t, src, fmt.Sprintf("p%d.jpg", i), uint64(100+i)))
	}
	mustCapture(t, o, paths...)
	o.SetTarget(Target{URL: proxy.URL(), Token: eng.Token})
	startDrain(t, o)
	c := settle(t, o, 20*time.Second)
	if c != (Counts{Done: 5}) {
		t.Fatalf("counts = %+v, want 5 done", c)
	}
	ents := entries(t, o)
	checkDelivered(t, eng, ents)
	for _, e := range ents {
		if e.State != Done || e.StepsDone != 4 || e.DeliveredAt == nil || e.Target != proxy.URL() {
			t.Errorf("entry %+v", e)
		}
		// Delivered files are removed, just after the entry is marked
		// done; the engine has them.
		waitFor(t, 5*time.Second, "the delivered files to go", func() bool {
			_, err := os.Stat(o.entryDir(e.ID))
			return os.IsNotExist(err)
		})
		waitFor(t, 5*time.Second, "the done event", func() bool { return len(rec.of(e.ID, EventDone)) == 1 })
		var steps []string
		for _, ev := range rec.of(e.ID, EventStepDone) {
			steps = append(steps, ev.Step)
		}
		if diff := cmp.Diff(Steps, steps); diff != "" {
			t.Errorf("entry %s steps (-want +got):\n%s", e.ID, diff)
		}
		prog := rec.of(e.ID, EventProgress)
		if len(prog) == 0 || prog[len(prog)-1].Sent != prog[len(prog)-1].Total {
			t.Errorf("entry %s: progress events %+v should end with all bytes sent", e.ID, prog)
		}
	}
	if n := eng.OpCount(t, api.OpMomentCreate); n != 5 {
		t.Errorf("%d moment.create ops, want 5", n)
	}
	// The same photo again is recognised as delivered.
	r := o.Capture(context.Background(), paths[:1], CaptureOptions{})[0]
	if !r.Duplicate || r.DuplicateOf != ents[0].ID && r.DuplicateOf == "" {
		t.Errorf("re-import of a delivered photo = %+v, want a duplicate", r)
	}
	// The moment it duplicates (its card opens it), while the entry is
	// in the queue and once it is discarded from there.
	want := ""
	for _, e := range ents {
		if e.ID == r.DuplicateOf {
			want = e.MomentID
		}
	}
	if got, err := o.MomentOf(context.Background(), r.DuplicateOf); err != nil || got != want || want == "" {
		t.Errorf("MomentOf(%s) = %q, %v; want %q", r.DuplicateOf, got, err, want)
	}
	if _, err := o.Discard(context.Background(), r.DuplicateOf, ""); err != nil {
		t.Fatalf("discard the delivered entry: %v", err)
	}
	if got, err := o.MomentOf(context.Background(), r.DuplicateOf); err != nil || got != want {
		t.Errorf("MomentOf(%s) once discarded = %q, %v; want %q", r.DuplicateOf, got, err, want)
	}
	if _, err := o.MomentOf(context.Background(), "no-such-entry"); !errors.Is(err, ErrNotFound) {
		t.Errorf("MomentOf of no entry: %v, want ErrNotFound", err)
	}
}

func TestDrain_StepOrderAndSkipOnRetry(t *testing.T) {
	eng := enginetest.Start(t)
	var turnFails atomic.Int32
	proxy := newFaultProxy(t, eng.URL, contractOnly(func(r *http.Request) fault {
		if route(r) == StepTurn && turnFails.Add(1) <= 2 {
			return fault{Kind: answer, Status: 503, Code: api.CodeUnavailable}
		}
		return fault{}
	}))
	o := openTest(t, "", testOptions())
	mustCapture(t, o, writePhoto(t, t.TempDir(), "a.jpg", 200))
	o.SetTarget(Target{URL: proxy.URL(), Token: eng.Token})
	startDrain(t, o)
	settle(t, o, 10*time.Second)
	var got []string
	for _, r := range proxy.requests() {
		if !strings.HasPrefix(r, http.MethodOptions+" ") { // the question contractOnly answers
			got = append(got, r)
		}
	}
	want := []string{StepCreate, StepCopy, StepTurn, StepTurn, StepTurn, StepOriginal}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
	checkDelivered(t, eng, entries(t, o))
}

func TestDrain_Parks(t *testing.T) {
	eng := enginetest.Start(t)
	for i, tt := range []struct {
		status int
		code   string
		step   string
	}{
		{400, api.CodeBadTakenAt, StepCreate},
		{404, api.CodeUnknownMoment, StepCopy},
		{409, api.CodeMediaConflict, StepOriginal},
		{413, api.CodeMediaTooLarge, StepOriginal},
		{422, "unprocessable", StepTurn},
	} {
		t.Run(fmt.Sprint(tt.status), func(t *testing.T) {
			o := openTest(t, "", testOptions())
			rec := record(t, o)
			src := t.TempDir()
			bad := mustCapture(t, o, writePhoto(t, src, "bad.jpg", uint64(300+10*i)))[0].Entry
			good := mustCapture(t, o, writePhoto(t, src, "good.jpg", uint64(301+10*i)))[0].Entry
			var refuse atomic.Bool
			refuse.Store(true)
			proxy := newFaultProxy(t, eng.URL, contractOnly(func(r *http.Request) fault {
				if refuse.Load() && route(r) == tt.step && requestFor(r, bad) {
					return fault{Kind: answer, Status: tt.status, Code: tt.code}
				}
				return fault{}
			}))
			o.SetTarget(Target{URL: proxy.URL(), Token: eng.Token})
			startDrain(t, o)
			c := settle(t, o, 10*time.Second)
			if c != (Counts{Parked: 1, Done: 1}) {
				t.Fatalf("counts = %+v, want 1 parked and 1 done", c)
			}
			got, _ := o.Entry(context.Background(), bad.ID)
			if got.State != Parked || got.LastCode != tt.code || got.LastError == "" || got.Attempts != 1 {
				t.Errorf("parked entry = state %s code %q error %q attempts %d", got.State, got.LastCode, got.LastError, got.Attempts)
			}
			// The event follows the state change: wait for it (it was
			// missed under load, with the state already parked).
			waitFor(t, 5*time.Second, "the parked event", func() bool { return len(rec.of(bad.ID, EventParked)) > 0 })
			if ev := rec.of(bad.ID, EventParked); len(ev) != 1 || ev[0].Code != tt.code || ev[0].Step != tt.step {
				t.Errorf("parked events = %+v", ev)
			}
			if n := len(rec.of(bad.ID, EventWaiting)); n != 0 {
				t.Errorf("%d waiting events for a refusal, want none", n)
			}
			// Parked stays parked: no retry on its own.
			before := len(proxy.requests())
			o.Kick()
			time.Sleep(50 * time.Millisecond)
			if after := len(proxy.requests()); after != before {
				t.Errorf("a parked entry was tried again without the user (%d -> %d requests)", before, after)
			}
			refuse.Store(false)
			if err := o.Retry(context.Background(), bad.ID); err != nil {
				t.Fatal(err)
			}
			if c := settle(t, o, 10*time.Second); c != (Counts{Done: 2}) {
				t.Fatalf("after retry counts = %+v", c)
			}
			checkDelivered(t, eng, []Entry{*bad, *good})
		})
	}
}

// requestFor reports whether r is part of entry e's delivery.
func requestFor(r *http.Request, e *Entry) bool {
	if r.URL.Query().Get("moment") == e.MomentID {
		return true
	}
	if r.URL.Path == "/v1/moments/"+e.MomentID+"/turns" {
		return true
	}
	if r.URL.Path == "/v1/moments" {
		return peekCreate(r, e)
	}
	return false
}

// peekCreate reads a create's body (putting it back for forwarding) and
// reports whether it creates e's moment.
func peekCreate(r *http.Request, e *Entry) bool {
	b, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(b))
	return bytes.Contains(b, []byte(e.MomentID))
}

func TestDrain_Waits(t *testing.T) {
	eng := enginetest.Start(t)
	cases := []struct {
		name string
		f    fault
		step string
	}{
		{"401", fault{Kind: answer, Status: 401, Code: api.CodeUnauthorized}, StepCreate},
		{"403", fault{Kind: answer, Status: 403, Code: api.CodeBadHost}, StepCopy},
		{"408", fault{Kind: answer, Status: 408}, StepTurn},
		{"425", fault{Kind: answer, Status: 425}, StepOriginal},
		{"429", fault{Kind: answer, Status: 429}, StepCreate},
		{"500", fault{Kind: answer, Status: 500, Code: api.CodeInternal}, StepCopy},
		{"502", fault{Kind: answer, Status: 502, HTML: true}, StepTurn},
		{"503", fault{Kind: answer, Status: 503, Code: api.CodeUnavailable}, StepOriginal},
		{"Reset", fault{Kind: reset}, StepCreate},
		{"ResetMidUpload", fault{Kind: resetBody}, StepOriginal},
		{"ReplyLost", fault{Kind: dropReply}, StepCopy},
	}
	for i, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			o := openTest(t, "", testOptions())
			rec := record(t, o)
			e := mustCapture(t, o, writePhoto(t, t.TempDir(), "a.jpg", uint64(400+i)))[0].Entry
			var n atomic.Int32
			proxy := newFaultProxy(t, eng.URL, contractOnly(func(r *http.Request) fault {
				if route(r) == tt.step && n.Add(1) <= 2 {
					return tt.f
				}
				return fault{}
			}))
			o.SetTarget(Target{URL: proxy.URL(), Token: eng.Token})
			startDrain(t, o)
			if c := settle(t, o, 10*time.Second); c != (Counts{Done: 1}) {
				t.Fatalf("counts = %+v, want 1 done", c)
			}
			waits := rec.of(e.ID, EventWaiting)
			if len(waits) != 2 {
				t.Errorf("%d waiting events, want 2", len(waits))
			}
			for _, w := range waits {
				if w.Step != tt.step || w.Reason == "" || w.NextTry == nil {
					t.Errorf("waiting event %+v", w)
				}
			}
			checkDelivered(t, eng, []Entry{*e})
		})
	}
	t.Run("ConnectionRefused", func(t *testing.T) {
		o := openTest(t, "", testOptions())
		rec := record(t, o)
		e := mustCapture(t, o, writePhoto(t, t.TempDir(), "a.jpg", 499))[0].Entry
		// A port with nothing listening, until the engine "comes up" there.
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close()
		o.SetTarget(Target{URL: "http://" + addr, Token: eng.Token})
		startDrain(t, o)
		waitFor(t, 5*time.Second, "two waits", func() bool { return len(rec.of(e.ID, EventWaiting)) >= 2 })
		if c, _ := o.Counts(context.Background()); c != (Counts{Pending: 1}) {
			t.Fatalf("counts = %+v, want still pending", c)
		}
		l, err = net.Listen("tcp", addr)
		if err != nil {
			t.Skipf("cannot listen on %s again: %v", addr, err)
		}
		p := newFaultProxy(t, eng.URL, nil)
		p.Close()
		srv := httptest.NewUnstartedServer(p)
		srv.Listener = l
		srv.Start()
		t.Cleanup(srv.Close)
		if c := settle(t, o, 10*time.Second); c != (Counts{Done: 1}) {
			t.Fatalf("counts = %+v, want 1 done", c)
		}
		checkDelivered(t, eng, []Entry{*e})
	})
}

// waitingOnce opens an outbox whose back-off is an hour, drains a capture
// of a photo made from seed to target, and waits for the capture's first
// wait (the target is to fail it once).
func waitingOnce(t *testing.T, target Target, seed uint64) (*Outbox, *recorder, *Entry) {
	t.Helper()
	opts := testOptions()
	opts.BackoffBase, opts.BackoffCap = time.Hour, time.Hour
	o := openTest(t, "", opts)
	rec := record(t, o)
	e := mustCapture(t, o, writePhoto(t, t.TempDir(), "a.jpg", seed))[0].Entry
	o.SetTarget(target)
	startDrain(t, o)
	waitFor(t, 5*time.Second, "a wait", func() bool { return len(rec.of(e.ID, EventWaiting)) == 1 })
	return o, rec, e
}

func TestDrain_KickIgnoresTimers(t *testing.T) {
	eng := enginetest.Start(t)
	var fails atomic.Int32
	proxy := newFaultProxy(t, eng.URL, func(r *http.Request) fault {
		if fails.Add(1) == 1 {
			// A wait the engine asked for: one it did not answer ends
			// with the next step that gets through (EngineAnswered).
			return fault{Kind: answer, Status: 503, Code: "unavailable", RetryAfter: "3600"}
		}
		return fault{}
	})
	o, _, e := waitingOnce(t, Target{URL: proxy.URL(), Token: eng.Token}, 600)
	got, _ := o.Entry(context.Background(), e.ID)
	if got.NextTry == nil || time.Until(*got.NextTry) < 10*time.Minute {
		t.Fatalf("next try %v, want about half an hour away", got.NextTry)
	}
	// A new capture is delivered at once but leaves the wait alone.
	mustCapture(t, o, writePhoto(t, t.TempDir(), "b.jpg", 601))
	waitFor(t, 5*time.Second, "the new capture's delivery", func() bool {
		c, _ := o.Counts(context.Background())
		return c.Done == 1
	})
	if again, _ := o.Entry(context.Background(), e.ID); again.NextTry == nil || !again.NextTry.Equal(*got.NextTry) {
		t.Fatalf("a capture moved the waiting entry's next try from %v to %v", got.NextTry, again.NextTry)
	}
	o.Kick()
	if c := settle(t, o, 5*time.Second); c != (Counts{Done: 2}) {
		t.Fatalf("counts = %+v", c)
	}
}

func TestDrain_SetTargetStartsOver(t *testing.T) {
	engA := enginetest.Start(t)
	engB := enginetest.Start(t)
	proxyA := newFaultProxy(t, engA.URL, func(r *http.Request) fault {
		if route(r) == StepCopy {
			return fault{Kind: answer, Status: 503}
		}
		return fault{}
	})
	o, rec, e := waitingOnce(t, Target{URL: proxyA.URL(), Token: engA.Token}, 700)
	if got, _ := o.Entry(context.Background(), e.ID); got.StepsDone != 1 {
		t.Fatalf("steps done = %d, want 1 (the create)", got.StepsDone)
	}
	o.SetTarget(Target{URL: engB.URL, Token: engB.Token})
	if c := settle(t, o, 5*time.Second); c != (Counts{Done: 1}) {
		t.Fatalf("counts = %+v", c)
	}
	if len(rec.of(e.ID, EventReset)) != 1 {
		t.Errorf("no reset event after the engine changed")
	}
	checkDelivered(t, engB, []Entry{*e})
	if n := engB.OpCount(t, api.OpMomentCreate); n != 1 {
		t.Errorf("engine B has %d moment.create ops, want 1", n)
	}
}

func TestOutbox_Discard(t *testing.T) {
	eng := enginetest.Start(t)
	proxy := newFaultProxy(t, eng.URL, func(r *http.Request) fault {
		return fault{Kind: answer, Status: 400, Code: api.CodeBadTakenAt}
	})
	o := openTest(t, "", testOptions())
	rec := record(t, o)
	src := writePhoto(t, t.TempDir(), "keep me.jpg", 800)
	want, _ := os.ReadFile(src)
	e := mustCapture(t, o, src)[0].Entry
	o.SetTarget(Target{URL: proxy.URL(), Token: eng.Token})
	startDrain(t, o)
	if c := settle(t, o, 5*time.Second); c.Parked != 1 {
		t.Fatalf("counts = %+v", c)
	}
	export := t.TempDir()
	os.WriteFile(filepath.Join(export, "keep me.jpg"), []byte("someone else's"), 0o644)
	path, err := o.Discard(context.Background(), e.ID, export)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != string(want) || filepath.Base(path) != "keep me (2).jpg" {
		t.Errorf("exported %s (%d bytes), want the original beside the existing file", path, len(got))
	}
	if _, err := o.Entry(context.Background(), e.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("Entry after discard: %v", err)
	}
	if got := listDir(t, filepath.Join(o.Dir(), "files")); len(got) != 0 {
		t.Errorf("files left: %v", got)
	}
	waitFor(t, 5*time.Second, "the removed event", func() bool { return len(rec.of(e.ID, EventRemoved)) == 1 })
	if _, err := o.Discard(context.Background(), e.ID, ""); !errors.Is(err, ErrNotFound) {
		t.Errorf("second discard: %v", err)
	}
}
