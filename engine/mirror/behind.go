package mirror

import (
	"context"
	"sync"
	"time"
)

// maxBehindWait bounds how long a read waits for the fold to reach the
// seq the log has answered; past it the read answers from the mirror as
// it is.
const maxBehindWait = 5 * time.Second

// behind is how far the log is ahead of the fold. The log answers a create
// once it is durable, and the fold follows (oplog.Log.AppendDurable): the
// engine tells the mirror the seq it answered (Published) before the
// writer hears of it, and every read of a table waits until the fold has
// reached that seq, so no reader, the writer included, sees the mirror
// from before an answered op.
type behind struct {
	mu        sync.Mutex
	published uint64
	ch        chan struct{} // closed when a fold commits or fails, waking the reads that wait
	stalled   bool          // a fold failed: reads do not wait for one that will not come
	kick      func()        // WhenBehind's: asks for the fold now
}

// WhenBehind sets what a read calls when it must wait for the fold: the
// engine asks the log's folder to fold now rather than gather more.
func (m *DB) WhenBehind(kick func()) {
	m.behind.mu.Lock()
	m.behind.kick = kick
	m.behind.mu.Unlock()
}

// Published records that the log has answered every op up to seq; reads
// wait for the fold to reach it.
func (m *DB) Published(seq uint64) {
	m.behind.mu.Lock()
	if seq > m.behind.published {
		m.behind.published = seq
	}
	m.behind.mu.Unlock()
}

// Reserve makes the id index hold a create's request id and moment id
// before its op is folded, since its writer is answered first: a repeat of
// the create then finds them (and its read waits for the fold) rather than
// taking them for new ids.
func (m *DB) Reserve(requestID, momentID string) {
	if requestID != "" {
		m.ids.add(requestIDs, requestID)
	}
	if momentID != "" {
		m.ids.add(momentIDs, momentID)
	}
}

// folded wakes the reads waiting for the fold; ok is whether it succeeded.
func (m *DB) folded(ok bool) {
	m.behind.mu.Lock()
	m.behind.stalled = !ok
	if m.behind.ch != nil {
		close(m.behind.ch)
		m.behind.ch = nil
	}
	m.behind.mu.Unlock()
}

// awaitFold waits until the fold has reached the published seq, ctx is
// done, a fold fails or maxBehindWait has passed.
func (m *DB) awaitFold(ctx context.Context) {
	var timer *time.Timer
	for {
		m.behind.mu.Lock()
		if m.behind.stalled || m.lastSeq.Load() >= m.behind.published {
			m.behind.mu.Unlock()
			break
		}
		if m.behind.ch == nil {
			m.behind.ch = make(chan struct{})
		}
		ch, kick := m.behind.ch, m.behind.kick
		m.behind.mu.Unlock()
		if timer == nil {
			timer = time.NewTimer(maxBehindWait)
		}
		if kick != nil {
			kick()
		}
		select {
		case <-ch:
			continue
		case <-ctx.Done():
		case <-timer.C:
		}
		break
	}
	if timer != nil {
		timer.Stop()
	}
}
