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
	held map[string]chan struct{}
}

// lock takes keys (empty ones are ignored), waiting while any of them is
// held by another write, and returns the function that releases them.
func (k *keyLock) lock(ctx context.Context, keys ...string) (func(), error) {
	for {
		k.mu.Lock()
		if k.held == nil {
			k.held = make(map[string]chan struct{})
		}
		var busy chan struct{}
		for _, key := range keys {
			if ch, ok := k.held[key]; ok && key != "" {
				busy = ch
				break
			}
		}
		if busy == nil {
			done := make(chan struct{})
			for _, key := range keys {
				if key != "" {
					k.held[key] = done
				}
			}
			k.mu.Unlock()
			return func() {
				k.mu.Lock()
				for _, key := range keys {
					if key != "" {
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
