package app

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// The tiles' budget: never more taken than its size, needs met first come
// first served (a large one is not passed over by small ones behind it), a
// wait ended by its context takes nothing, and a need above the whole
// budget is refused at once.
func TestBudget(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := newBudget(10)
		ctx := context.Background()
		if err := b.acquire(ctx, 11); !errors.Is(err, errOverBudget) {
			t.Fatalf("acquire(11) of 10 = %v, want errOverBudget", err)
		}
		if err := b.acquire(ctx, 6); err != nil {
			t.Fatal(err)
		}
		var (
			mu    sync.Mutex
			order []int64
			held  atomic.Int64
			most  atomic.Int64
		)
		held.Store(6)
		take := func(n int64) {
			if err := b.acquire(ctx, n); err != nil {
				t.Error(err)
				return
			}
			most.Store(max(most.Load(), held.Add(n)))
			mu.Lock()
			order = append(order, n)
			mu.Unlock()
			time.Sleep(time.Second)
			held.Add(-n)
			b.release(n)
		}
		var wg sync.WaitGroup
		wg.Go(func() { take(8) }) // waits for the 6
		synctest.Wait()
		wg.Go(func() { take(3) }) // would fit now, but comes after the 8
		synctest.Wait()
		gone, cancel := context.WithCancel(ctx)
		done := make(chan error)
		go func() { done <- b.acquire(gone, 5) }()
		synctest.Wait()
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Errorf("acquire with its context ended = %v", err)
		}
		held.Add(-6)
		b.release(6)
		wg.Wait()
		if len(order) != 2 || order[0] != 8 || order[1] != 3 {
			t.Errorf("needs met in the order %v, want [8 3]", order)
		}
		if most.Load() > 10 {
			t.Errorf("%d bytes of 10 taken at once", most.Load())
		}
		if b.free != 10 || b.waiters.Len() != 0 {
			t.Errorf("after all: %d free, %d waiting; want 10, 0", b.free, b.waiters.Len())
		}
	})
}
