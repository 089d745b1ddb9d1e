package app

import (
	"container/list"
	"context"
	"errors"
	"sync"
)

// errOverBudget refuses a need larger than the whole budget, which no
// wait could meet.
var errOverBudget = errors.New("more memory than the whole budget")

// budget is an amount of memory shared by the work that needs it (the
// tiles being made): acquire waits until the bytes asked for are free,
// first come first served, so a large need is not passed over for ever by
// small ones. It is golang.org/x/sync/semaphore's weighted semaphore,
// which Spark does not otherwise need.
type budget struct {
	mu      sync.Mutex
	size    int64
	free    int64
	waiters list.List // of *budgetWaiter, in the order they came
}

type budgetWaiter struct {
	n     int64
	ready chan struct{} // closed once the bytes are the waiter's
}

func newBudget(size int64) *budget { return &budget{size: size, free: size} }

// acquire takes n bytes of the budget, waiting for them in turn; it
// returns ctx's error, having taken nothing, when ctx ends first, and
// errOverBudget for more than the whole budget.
func (b *budget) acquire(ctx context.Context, n int64) error {
	if n > b.size {
		return errOverBudget
	}
	b.mu.Lock()
	if b.waiters.Len() == 0 && n <= b.free {
		b.free -= n
		b.mu.Unlock()
		return nil
	}
	w := &budgetWaiter{n: n, ready: make(chan struct{})}
	e := b.waiters.PushBack(w)
	b.mu.Unlock()
	select {
	case <-w.ready:
		return nil
	case <-ctx.Done():
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	select {
	case <-w.ready:
		// Given meanwhile: given back.
		b.free += n
	default:
		b.waiters.Remove(e)
	}
	// Those behind it may fit now.
	b.grantLocked()
	return ctx.Err()
}

// release gives back n bytes that acquire took.
func (b *budget) release(n int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.free += n
	b.grantLocked()
}

// grantLocked gives the waiters, in turn, the bytes that are free, up to
// the first that does not fit.
func (b *budget) grantLocked() {
	for e := b.waiters.Front(); e != nil; e = b.waiters.Front() {
		w := e.Value.(*budgetWaiter)
		if w.n > b.free {
			return
		}
		b.free -= w.n
		b.waiters.Remove(e)
		close(w.ready)
	}
}
