package app

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/sparkfamily/spark/app/view"
	"github.com/sparkfamily/spark/engine/client"
	"github.com/sparkfamily/spark/engine/enginetest"
	"github.com/sparkfamily/spark/outbox"
)

// writeShell keeps the "write" events.
type writeShell struct {
	testShell
	mu     sync.Mutex
	writes []view.WriteEvent
}

func (s *writeShell) Emit(event string, data any) {
	if e, ok := data.(view.WriteEvent); ok && event == EventWrite {
		s.mu.Lock()
		s.writes = append(s.writes, e)
		s.mu.Unlock()
	}
	s.testShell.Emit(event, data)
}

// sent returns the "write" events of kind that say it was sent (its last
// step's and its end's).
func (s *writeShell) sent(kind string) []view.WriteEvent {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []view.WriteEvent
	for _, e := range s.writes {
		if e.Kind == kind && e.State == view.WriteStateSent {
			out = append(out, e)
		}
	}
	return out
}

// broughtBackIn counts the events that say their write brought its
// moment back.
func broughtBackIn(es []view.WriteEvent) int {
	n := 0
	for _, e := range es {
		if e.BroughtBack {
			n++
		}
	}
	return n
}

// Issue 35: a caption typed while the family engine is away, on a moment
// another computer deleted meanwhile, brings it back when the Outbox sends
// it later, and the window hears so from the "write" event of the send
// (brought_back), as it does for a caption sent at once. Before, only the
// answer of a caption sent at once said it, so the window said nothing.
func TestWriteEvent_BroughtBackWhenSentLater(t *testing.T) {
	oldOpts, oldWait := outboxOptions, writeWait
	outboxOptions = outbox.Options{BackoffBase: 50 * time.Millisecond, BackoffCap: 200 * time.Millisecond, Rand: func() float64 { return 0.5 }}
	writeWait = 300 * time.Millisecond
	t.Cleanup(func() { outboxOptions, writeWait = oldOpts, oldWait })

	remote := enginetest.Start(t, enginetest.WithoutSeat())
	other := client.New(remote.URL, remote.Token, remote.Client())
	link := newLinkProxy(t, remote.URL)
	a := New(Options{DataDir: t.TempDir()})
	sh := &writeShell{}
	a.Startup(context.Background(), sh)
	t.Cleanup(a.Shutdown)
	if _, err := a.Settings.UseRemote(link.srv.URL, remote.Token); err != nil {
		t.Fatal(err)
	}
	note := ulid.Make().String()
	if _, err := a.Moments.AddNote(note, "the letter"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the note sent", delivered(a))
	// The Outbox tells its listeners after its entry is done: the event
	// may follow the count by a moment.
	waitFor(t, "the note's sent event", func() bool { return len(sh.sent("note")) > 0 })
	if got := sh.sent("note"); len(got) == 0 || broughtBackIn(got) != 0 {
		t.Fatalf("the note's sent events = %+v; want them, bringing nothing back", got)
	}

	link.set(true, false) // the family engine goes away
	if mo, err := a.Moments.SetCaption(note, "the letter from Anna", captionShown(a, note)); err != nil || mo.WaitsFor == "" || mo.BroughtBack {
		t.Fatalf("SetCaption offline = %+v, %v; want it waiting", mo, err)
	}
	// Meanwhile the desktop deletes the moment.
	if _, err := other.DeleteMoment(context.Background(), note); err != nil {
		t.Fatal(err)
	}
	link.set(false, false) // the engine is back; the Outbox sends it
	waitFor(t, "the caption sent by the Outbox", func() bool { return broughtBackIn(sh.sent("caption")) > 0 })
	waitFor(t, "nothing waiting", delivered(a))
	if got := sh.sent("caption"); broughtBackIn(got) != 1 || got[0].MomentID != note {
		t.Fatalf("the caption's sent events = %+v; want one that says it brought the moment back, once", got)
	}
	m, err := other.Moment(context.Background(), note)
	if err != nil || m.DeletedAt != nil || m.Caption != "the letter from Anna" {
		t.Fatalf("the moment at the family engine = %+v, %v; want it back, with the caption", m, err)
	}
}
