package app

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/sparkfamily/spark/engine/pippa/pippatest"
)

// momentShell keeps the "moment" events.
type momentShell struct {
	testShell
	mu      sync.Mutex
	moments []MomentEvent
}

func (s *momentShell) Emit(event string, data any) {
	if e, ok := data.(MomentEvent); ok && event == "moment" {
		s.mu.Lock()
		s.moments = append(s.moments, e)
		s.mu.Unlock()
	}
	s.testShell.Emit(event, data)
}

// waitReading waits for a "moment" event of moment id that holds a
// finished reading.
func (s *momentShell) waitReading(t *testing.T, id string) {
	t.Helper()
	waitFor(t, "a moment event with the finished reading", func() bool {
		return s.find(func(e MomentEvent) bool {
			if e.ID != id || e.Kind != MomentKindChanged || e.Moment == nil {
				return false
			}
			for _, r := range e.Moment.Readings {
				if r.Status == "finished" && r.Text != "" {
					return true
				}
			}
			return false
		})
	})
}

func (s *momentShell) find(ok func(MomentEvent) bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range s.moments {
		if ok(e) {
			return true
		}
	}
	return false
}

// TestWatch_ReadingArrives checks that a reading finished by Pippa reaches
// the UI as a "moment" event carrying the reading, and a deletion as a
// "deleted" one, without the UI asking.
func TestWatch_ReadingArrives(t *testing.T) {
	old := watchEvery
	watchEvery = 50 * time.Millisecond
	t.Cleanup(func() { watchEvery = old })
	p := pippatest.New(t)
	p.SetDelay(300 * time.Millisecond)
	a := New(Options{DataDir: t.TempDir()})
	sh := &momentShell{}
	a.Startup(context.Background(), sh)
	t.Cleanup(a.Shutdown)
	if _, err := a.Settings.SetPippa(Pippa{URL: p.URL(), Model: "test-model"}); err != nil {
		t.Fatal(err)
	}
	res, err := a.Capture.Files("b1", []string{writePhoto(t, t.TempDir(), 1)})
	if err != nil || len(res) != 1 || res[0].Error != nil {
		t.Fatalf("capture: %v %+v", err, res)
	}
	id := res[0].MomentID
	sh.waitReading(t, id)
	if _, err := a.Moments.Delete(id); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a deleted event", func() bool {
		return sh.find(func(e MomentEvent) bool { return e.ID == id && e.Kind == MomentKindDeleted && e.Moment == nil })
	})
}
