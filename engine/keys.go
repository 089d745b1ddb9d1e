package engine

import (
	"context"
	"sync"
)

// keyLock is the table of keys held by writes in progress. A write takes
// all its keys at once (or waits until none of them is held), so two writes
// that share a key run one after the other, and writes that share none run
// side by side.
type keyLock struct {
	mu   sync.Mutex
	held map[lockKey]chan struct{}
}

// lockKey is a key of the table: an id in its namespace (keyOf), so that
// making one joins no strings. The zero lockKey is no key.
type lockKey struct{ space, id string }

// lock takes keys (zero ones are ignored), waiting while any of them is
// held by another write, and returns the function that releases them.
func (k *keyLock) lock(ctx context.Context, keys ...lockKey) (func(), error) {
	for {
		k.mu.Lock()
		if k.held == nil {
			k.held = make(map[lockKey]chan struct{})
		}
		var busy chan struct{}
		for _, key := range keys {
			if ch, ok := k.held[key]; ok && key != (lockKey{}) {
				busy = ch
				break
			}
		}
		if busy == nil {
			done := make(chan struct{})
			for _, key := range keys {
				if key != (lockKey{}) {
					k.held[key] = done
				}
			}
			k.mu.Unlock()
			return func() {
				k.mu.Lock()
				for _, key := range keys {
					if key != (lockKey{}) {
						delete(k.held, key)
					}
				}
				k.mu.Unlock()
				close(done)
			}, nil
		}
		k.mu.Unlock()
		select {
		case <-busy:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}
