package engine

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/oplog"
)

// Readings cost money: each new turn is a paid completion at the family's
// model. So each family member may start only so many (issue 25, item 7;
// issue 32, item 5): a burst of TurnBurst at once, then one each TurnEvery
// (a token bucket), and TurnsPerDay in a day (UTC). The allowance is a
// member's, not a token's: Dad's laptop and Dad's desktop spend one
// between them. An admin token (the engine's owner's, and the desktop
// app's own engine's) is not limited. A start past either is refused with
// 429 too_many_readings and a Retry-After that says when the next one is
// allowed; the outbox waits that long and sends the same start again, so
// nothing Dad asked for is lost. A repeat of a turn already started costs
// nothing and is never refused, and a start whose append fails is given
// back (appendTurns).

// Defaults of the turn limit.
const (
	DefaultTurnBurst = 30
	DefaultTurnEvery = 2 * time.Second
	// DefaultTurnsPerDay is each member's daily quota when the engine's
	// owner sets none. A family member never meets it: a reading of each
	// of 100 photos on a busy day, and a careful job of 4 seats on a
	// dozen of them, is 148. A runaway script does, at the rate's one
	// every 2 s, within 10 minutes, having spent 300 paid completions
	// rather than the 43,200 the rate alone allows in a day.
	DefaultTurnsPerDay = 300
)

// turnLimit is the per-member limit on new turns. Its methods are safe for
// concurrent use. It keeps one bucket per member, so its memory is
// bounded by the tokens the engine knows.
type turnLimit struct {
	burst  float64
	every  time.Duration
	perDay int
	now    func() time.Time

	mu      sync.Mutex
	buckets map[string]*turnBucket
}

type turnBucket struct {
	level float64   // turns that may start now
	at    time.Time // when level was reckoned
	day   string    // the UTC day used counts
	used  int
}

func newTurnLimit(burst int, every time.Duration, perDay int, now func() time.Time) *turnLimit {
	if burst <= 0 {
		burst = DefaultTurnBurst
	}
	if every <= 0 {
		every = DefaultTurnEvery
	}
	switch {
	case perDay == 0:
		perDay = DefaultTurnsPerDay
	case perDay < 0:
		perDay = 0 // no daily quota
	}
	return &turnLimit{burst: float64(burst), every: every, perDay: perDay, now: now, buckets: map[string]*turnBucket{}}
}

// take spends n turns of a's allowance, or spends nothing and returns a
// too_many_readings error whose RetryAfter is when n would be allowed.
// Admins, and the engine's own starts, are not limited.
func (l *turnLimit) take(a Actor, n int) error {
	if a.Admin || n <= 0 {
		return nil
	}
	who := a.member()
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.buckets[who]
	if b == nil {
		b = &turnBucket{level: l.burst, at: now}
		l.buckets[who] = b
	}
	if since := now.Sub(b.at); since > 0 {
		b.level = math.Min(l.burst, b.level+since.Seconds()/l.every.Seconds())
	}
	b.at = now
	day := now.UTC().Format(time.DateOnly)
	if b.day != day {
		b.day, b.used = day, 0
	}
	if l.perDay > 0 && b.used+n > l.perDay {
		midnight := now.UTC().Truncate(24 * time.Hour).Add(24 * time.Hour)
		return tooManyReadings(midnight.Sub(now), fmt.Sprintf("you (family member %q, on all your devices) have asked for %d readings today, and the family engine allows %d a day; the rest are asked for on their own after midnight (UTC)", who, b.used, l.perDay))
	}
	if need := float64(n); b.level < need {
		if need > l.burst {
			// More at once than the burst can ever hold: let it through
			// when the bucket is full, as one large spend.
			need = l.burst
		}
		if b.level < need {
			wait := time.Duration((need - b.level) * float64(l.every))
			return tooManyReadings(wait, fmt.Sprintf("you (family member %q, on all your devices) are asking for readings faster than the family engine allows; they are asked for again on their own in a moment", who))
		}
	}
	b.level -= float64(n)
	b.used += n
	return nil
}

// give returns n turns that take spent for a: their start was not
// written (its append failed), and a reading Dad never got costs nothing.
func (l *turnLimit) give(a Actor, n int) {
	if a.Admin || n <= 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.buckets[a.member()]
	if b == nil {
		return
	}
	b.level = math.Min(l.burst, b.level+float64(n))
	if b.used >= n {
		b.used -= n
	}
}

// appendTurns appends the records that start n new turns, spending n of
// the asker's allowance first (a refusal writes nothing) and giving them
// back when the append fails: only a start that is written costs a turn.
func (e *Engine) appendTurns(ctx context.Context, n int, recs ...oplog.Record) error {
	a := actorOf(ctx)
	if err := e.turnLimit.take(a, n); err != nil {
		return err
	}
	if err := e.appendOps(ctx, recs...); err != nil {
		e.turnLimit.give(a, n)
		return err
	}
	return nil
}

// tooManyReadings is the refusal of take, with its wait rounded up to a
// whole second (what Retry-After can say).
func tooManyReadings(wait time.Duration, msg string) error {
	e := api.Errorf(api.CodeTooManyReadings, "%s", msg)
	e.RetryAfter = max(time.Second, (wait + time.Second - 1).Truncate(time.Second))
	return e
}
