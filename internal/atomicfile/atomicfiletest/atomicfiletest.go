// Package atomicfiletest is, for tests, a reader racing a writer that
// replaces the file it reads, as a push reading an engine's id or its own
// checkpoint beside another process replacing it does. On Windows a read
// without delete sharing (os.ReadFile) that meets the replace fails with a
// sharing violation; atomicfile.ReadFile does not.
package atomicfiletest

import (
	"sync"
	"time"
)

// Result is how a race went.
type Result struct {
	Reads, Failed int
	Writes        int   // replaces that succeeded
	First         error // the first failed read's error
}

// ReadWhileReplaced calls write again and again on another goroutine while
// it calls read on this one for d, then stops the writer and tells how it
// went. write's error only keeps a failed replace out of Writes.
func ReadWhileReplaced(d time.Duration, write, read func() error) Result {
	var r Result
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			if write() == nil {
				mu.Lock()
				r.Writes++
				mu.Unlock()
			}
		}
	})
	for deadline := time.Now().Add(d); time.Now().Before(deadline); r.Reads++ {
		if err := read(); err != nil {
			r.Failed++
			if r.First == nil {
				r.First = err
			}
		}
		time.Sleep(200 * time.Microsecond)
	}
	close(stop)
	wg.Wait()
	return r
}
