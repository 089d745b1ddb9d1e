package engine

import (
	"context"
	"fmt"
	"strings"
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

// TestTurnLimit_MemberSharesQuota: the daily quota is a family member's,
// not a token's (issue 32, item 5): Dad's laptop and Dad's desktop spend
// one quota between them, while the kid keeps his own.
func TestTurnLimit_MemberSharesQuota(t *testing.T) {
	const perDay = 4
	e := openEngine(t, t.TempDir(), func(c *Config) { c.TurnsPerDay = perDay })
	mo := mustCreate(t, e, api.CreateMomentRequest{Kind: api.KindNote, Caption: "the water bill"})
	laptop := WithActor(ctxT(t), Actor{Name: "dad-laptop", Member: "dad"})
	desktop := WithActor(ctxT(t), Actor{Name: "dad-desktop", Member: "dad"})
	kid := WithActor(ctxT(t), Actor{Name: "kid"})
	n := 0
	start := func(ctx context.Context) error {
		n++
		_, _, err := e.StartTurn(ctx, mo.ID, api.StartTurnRequest{ClientRequestID: fmt.Sprintf("turn-%d", n), Mode: api.ModePractical})
		return err
	}
	for i := range perDay {
		ctx := laptop
		if i%2 == 1 {
			ctx = desktop
		}
		if err := start(ctx); err != nil {
			t.Fatalf("reading %d of dad's %d: %v", i+1, perDay, err)
		}
	}
	for _, ctx := range []context.Context{laptop, desktop} {
		err := start(ctx)
		wantCode(t, err, api.CodeTooManyReadings)
		if !strings.Contains(err.Error(), "today") {
			t.Errorf("the refusal does not say the day's readings are spent: %v", err)
		}
	}
	if err := start(kid); err != nil {
		t.Fatalf("another member's quota is their own: %v", err)
	}
}

// TestTurnLimit_DefaultDay: with no --turns-per-day, each member still has
// a daily quota that a runaway script meets within the hour (one reading
// every 2 s, as fast as the rate lets it), and that a family member
// reading by hand all day never does.
func TestTurnLimit_DefaultDay(t *testing.T) {
	clock := &fakeNow{t: time.Date(2026, 12, 2, 8, 0, 0, 0, time.UTC)}
	l := newTurnLimit(0, 0, 0, clock.now)
	script := Actor{Name: "script"}
	n := 0
	for ; n <= DefaultTurnsPerDay; n++ {
		if err := l.take(script, 1); err != nil {
			wantCode(t, err, api.CodeTooManyReadings)
			break
		}
		clock.add(DefaultTurnEvery)
	}
	if n != DefaultTurnsPerDay {
		t.Fatalf("a script was refused after %d readings; want the default quota of %d", n, DefaultTurnsPerDay)
	}
	if spent := time.Duration(n) * DefaultTurnEvery; spent > time.Hour {
		t.Errorf("a script at full rate meets the quota after %v; want within the hour", spent)
	}
	// Dad, from 8 in the morning to 8 at night: a reading every 5
	// minutes, and a careful job of 4 seats every hour.
	dad := Actor{Name: "dad"}
	for range 12 * 12 {
		if err := l.take(dad, 1); err != nil {
			t.Fatalf("a member reading by hand was refused: %v", err)
		}
		clock.add(5 * time.Minute)
		if clock.now().Minute() < 5 {
			if err := l.take(dad, 4); err != nil {
				t.Fatalf("a member's careful job was refused: %v", err)
			}
		}
	}
	// A negative quota turns it off.
	l = newTurnLimit(1000, time.Millisecond, -1, clock.now)
	for i := range 2 * DefaultTurnsPerDay {
		if err := l.take(script, 1); err != nil {
			t.Fatalf("reading %d with no daily quota: %v", i+1, err)
		}
		clock.add(time.Millisecond)
	}
}
