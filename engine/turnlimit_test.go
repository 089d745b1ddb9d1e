package engine

import (
	"sync"
	"testing"
	"time"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/pippa/pippatest"
	"github.com/sparkfamily/spark/engine/vfs/crashfs"
)

// fakeNow is a clock the test moves.
type fakeNow struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeNow) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeNow) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func wantRefused(t *testing.T, err error, wait time.Duration) {
	t.Helper()
	e, ok := api.AsError(err)
	if !ok || e.Code != api.CodeTooManyReadings {
		t.Fatalf("got %v; want %s", err, api.CodeTooManyReadings)
	}
	if e.RetryAfter != wait {
		t.Errorf("Retry-After %v; want %v", e.RetryAfter, wait)
	}
}

func TestTurnLimit_Burst(t *testing.T) {
	clock := &fakeNow{t: time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)}
	l := newTurnLimit(3, 2*time.Second, 0, clock.now)
	for i := range 3 {
		if err := l.take(Actor{Name: "dad-laptop"}, 1); err != nil {
			t.Fatalf("turn %d of the burst: %v", i+1, err)
		}
	}
	wantRefused(t, l.take(Actor{Name: "dad-laptop"}, 1), 2*time.Second)
	if err := l.take(Actor{Name: "kitchen-tablet"}, 1); err != nil {
		t.Fatalf("another token has its own allowance: %v", err)
	}
	if err := l.take(Actor{Admin: true}, 50); err != nil {
		t.Fatalf("an admin's starts are not limited: %v", err)
	}
	clock.add(1500 * time.Millisecond)
	wantRefused(t, l.take(Actor{Name: "dad-laptop"}, 1), time.Second) // 0.5 s to go, rounded up
	clock.add(500 * time.Millisecond)
	if err := l.take(Actor{Name: "dad-laptop"}, 1); err != nil {
		t.Fatalf("after one interval: %v", err)
	}
	// A job of more turns than the burst starts once the bucket is full.
	clock.add(time.Hour)
	if err := l.take(Actor{Name: "dad-laptop"}, 5); err != nil {
		t.Fatalf("a job larger than the burst, bucket full: %v", err)
	}
	// and leaves the bucket owing what it took past the burst.
	wantRefused(t, l.take(Actor{Name: "dad-laptop"}, 1), 6*time.Second)
}

func TestTurnLimit_Day(t *testing.T) {
	clock := &fakeNow{t: time.Date(2026, 12, 2, 23, 0, 0, 0, time.UTC)}
	l := newTurnLimit(100, time.Millisecond, 4, clock.now)
	if err := l.take(Actor{Name: "dad-laptop"}, 3); err != nil {
		t.Fatal(err)
	}
	if err := l.take(Actor{Name: "dad-laptop"}, 1); err != nil {
		t.Fatal(err)
	}
	wantRefused(t, l.take(Actor{Name: "dad-laptop"}, 1), time.Hour) // until midnight UTC
	clock.add(time.Hour)
	if err := l.take(Actor{Name: "dad-laptop"}, 4); err != nil {
		t.Fatalf("a new day: %v", err)
	}
}

// TestTurnLimit_FailedAppendSpendsNothing starts a reading while the disk
// is gone (crashfs: every write fails): the start is not written, so it
// must not spend the device's allowance, or Dad's next reading would be
// refused for one he never got.
func TestTurnLimit_FailedAppendSpendsNothing(t *testing.T) {
	dir := t.TempDir()
	disk, err := crashfs.New(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	p := pippatest.New(t)
	e := openEngine(t, dir, withSeats(p.Config()), func(c *Config) {
		c.FS = disk
		c.TurnBurst, c.TurnEvery = 1, time.Hour
	})
	mo := photoMoment(t, e, "water bill")
	dad := Actor{Name: "dad-laptop"}
	disk.Crash()
	_, _, err = e.StartTurn(WithActor(ctxT(t), dad), mo.ID, api.StartTurnRequest{ClientRequestID: "turn-1", Mode: api.ModePractical})
	if err == nil {
		t.Fatal("a reading started on a disk that takes no writes")
	}
	if api.ErrorCode(err) == api.CodeTooManyReadings {
		t.Fatalf("the first reading was refused by the limit: %v", err)
	}
	if err := e.turnLimit.take(dad, 1); err != nil {
		t.Fatalf("the reading that was never written spent the allowance: %v", err)
	}
}
