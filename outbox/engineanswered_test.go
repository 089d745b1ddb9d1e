package outbox

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/sparkfamily/spark/engine/client"
	"github.com/sparkfamily/spark/engine/enginetest"
)

// answeredSetup is a caption of a note on a real engine, made while the
// engine is away (the proxy in front of it answers with trouble), in an
// outbox whose back-off is an hour: the caption waits half an hour after
// its first failure.
type answeredSetup struct {
	o     *Outbox
	eng   *enginetest.Engine
	cl    *client.Client
	proxy *faultProxy
	away  atomic.Bool
	m     string
	w     *Write
}

func newAnswered(t *testing.T, trouble fault) *answeredSetup {
	t.Helper()
	ctx := context.Background()
	s := &answeredSetup{eng: enginetest.Start(t)}
	s.cl = client.New(s.eng.URL, s.eng.Token, s.eng.Client())
	s.m = noteOn(t, s.cl, "before")
	s.away.Store(true)
	s.proxy = newFaultProxy(t, s.eng.URL, func(r *http.Request) fault {
		if s.away.Load() {
			return trouble
		}
		return fault{}
	})
	opts := testOptions()
	opts.BackoffBase, opts.BackoffCap = time.Hour, time.Hour
	s.o = openTest(t, "", opts)
	s.o.SetTarget(Target{URL: s.proxy.URL(), Token: s.eng.Token})
	runDrain(t, s.o)
	w, err := s.o.AddWrite(ctx, NewCaption(s.m, "changed offline", nil))
	if err != nil {
		t.Fatal(err)
	}
	s.w = w
	waitFor(t, 5*time.Second, "the caption's first failure", func() bool {
		got, err := s.o.Write(ctx, w.ID)
		return err == nil && got.NextTry != nil
	})
	got, _ := s.o.Write(ctx, w.ID)
	if left := time.Until(*got.NextTry); left < 10*time.Minute {
		t.Fatalf("the caption waits %s; want about half an hour (the test's back-off)", left)
	}
	return s
}

// arrivesWithin waits up to d for the caption at the engine and returns
// how long it took.
func (s *answeredSetup) arrivesWithin(t *testing.T, d time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	waitFor(t, d, "the caption at the engine", func() bool {
		m, err := s.cl.Moment(context.Background(), s.m)
		return err == nil && m.Caption == "changed offline"
	})
	return time.Since(start)
}

// stillWaits checks, for a while, that the caption has not reached the
// engine.
func (s *answeredSetup) stillWaits(t *testing.T, d time.Duration) {
	t.Helper()
	time.Sleep(d)
	if m, err := s.cl.Moment(context.Background(), s.m); err != nil || m.Caption != "before" {
		t.Fatalf("caption at the engine = %q, %v; want it still waiting (before)", m.Caption, err)
	}
	if w, err := s.o.Write(context.Background(), s.w.ID); err != nil || w.State != Pending || w.NextTry == nil {
		t.Fatalf("caption = %+v, %v; want it waiting", w, err)
	}
}

// Issue 36, item 1: a change made while the engine could not be reached
// goes as soon as Spark sees the engine answer again, not at the end of
// its back-off (half an hour here; 20 s and 54 s in the report).
func TestEngineAnswered_EndsTheWaitForTheEngine(t *testing.T) {
	for _, tc := range []struct {
		name    string
		trouble fault
	}{
		{"ConnectionReset", fault{Kind: reset}},
		{"Proxy502", fault{Kind: answer, Status: http.StatusBadGateway, HTML: true}},
		{"Proxy504", fault{Kind: answer, Status: http.StatusGatewayTimeout, HTML: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newAnswered(t, tc.trouble)
			s.away.Store(false) // the engine is back
			// Back, but no one has said so: the back-off holds.
			s.stillWaits(t, 300*time.Millisecond)
			// Another engine answering says nothing of this one.
			s.o.EngineAnswered(s.eng.URL)
			s.stillWaits(t, 300*time.Millisecond)
			s.o.EngineAnswered(s.proxy.URL() + "/")
			took := s.arrivesWithin(t, time.Second)
			t.Logf("the caption arrived %s after EngineAnswered", took.Round(time.Millisecond))
			// The engine has it; the outbox notes it once the answer is
			// read, a moment later on a busy machine.
			waitFor(t, 5*time.Second, "the caption noted as sent", func() bool {
				w, err := s.o.Write(context.Background(), s.w.ID)
				return err == nil && w.State == Done
			})
		})
	}
}

// A wait the engine asked for (a 429 or a 503 with Retry-After) is the
// engine's answer, not its absence: EngineAnswered leaves it alone, and
// so does a later one once the engine answered.
func TestEngineAnswered_KeepsWaitsTheEngineAskedFor(t *testing.T) {
	for _, tc := range []struct {
		name    string
		trouble fault
	}{
		{"429", fault{Kind: answer, Status: http.StatusTooManyRequests, Code: "too_many_requests", RetryAfter: "3600"}},
		{"503RetryAfter", fault{Kind: answer, Status: http.StatusServiceUnavailable, Code: "unavailable", RetryAfter: "3600"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newAnswered(t, tc.trouble)
			s.away.Store(false)
			s.o.EngineAnswered(s.proxy.URL())
			s.stillWaits(t, 500*time.Millisecond)
		})
	}
}

// The drain's own steps are the engine answering too: a note written
// once the engine is back, delivered at once, takes the caption that
// waited for the engine with it.
func TestEngineAnswered_ByAStepThatGotThrough(t *testing.T) {
	s := newAnswered(t, fault{Kind: reset})
	s.away.Store(false)
	s.stillWaits(t, 300*time.Millisecond)
	note := NewNote(ulid.Make().String(), "written once it was back")
	if _, err := s.o.AddWrite(context.Background(), note); err != nil {
		t.Fatal(err)
	}
	took := s.arrivesWithin(t, 2*time.Second)
	t.Logf("the caption arrived %s after the note was written", took.Round(time.Millisecond))
}
