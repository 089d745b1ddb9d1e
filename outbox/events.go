package outbox

import (
	"sync"
	"time"
)

// EventKind names what happened to an entry.
type EventKind string

const (
	EventAdded    EventKind = "added"     // captured and safe
	EventStepDone EventKind = "step_done" // Step acknowledged by the engine
	EventProgress EventKind = "progress"  // Sent of Total bytes of Step held by the engine
	EventWaiting  EventKind = "waiting"   // passing trouble: Reason, retried at NextTry
	EventParked   EventKind = "parked"    // refused: Code and Message from the engine
	EventDone     EventKind = "done"      // delivered
	EventRemoved  EventKind = "removed"   // discarded by the user
	EventRetried  EventKind = "retried"   // put back to pending by the user
	EventReset    EventKind = "reset"     // steps forgotten after the engine changed
)

// Event is one change of an entry, for progress displays.
type Event struct {
	Kind    EventKind `json:"kind"`
	EntryID string    `json:"entry_id"`
	At      time.Time `json:"at"`

	Step    string     `json:"step,omitempty"`
	Sent    int64      `json:"sent,omitempty"`
	Total   int64      `json:"total,omitempty"`
	Reason  string     `json:"reason,omitempty"`
	Code    string     `json:"code,omitempty"`
	Message string     `json:"message,omitempty"`
	NextTry *time.Time `json:"next_try,omitempty"`
	Entry   *Entry     `json:"entry,omitempty"` // set on added
	// Write is set for an event of a write (not a photo): EntryID is then
	// the write's id, and Kind one of added, waiting, parked, done (sent),
	// retried or removed (discarded).
	Write *Write `json:"write,omitempty"`
}

// events fans events out to subscribers. Each subscriber has its own
// unbounded queue so a slow reader never stalls a capture or the drain;
// queued progress events of the same upload are merged into the newest.
type events struct {
	mu   sync.Mutex
	subs map[*subscriber]struct{}
	shut bool
}

type subscriber struct {
	mu     sync.Mutex
	queue  []Event
	wake   chan struct{}
	out    chan Event
	done   chan struct{}
	closed bool
}

// Subscribe returns a channel of events and a function that ends the
// subscription (and closes the channel). The channel is also closed when
// the outbox is closed.
func (o *Outbox) Subscribe() (<-chan Event, func()) { return o.events.subscribe() }

func (ev *events) subscribe() (<-chan Event, func()) {
	s := &subscriber{wake: make(chan struct{}, 1), out: make(chan Event), done: make(chan struct{})}
	ev.mu.Lock()
	if ev.subs == nil {
		ev.subs = map[*subscriber]struct{}{}
	}
	if ev.shut {
		ev.mu.Unlock()
		close(s.out)
		return s.out, func() {}
	}
	ev.subs[s] = struct{}{}
	ev.mu.Unlock()
	go s.loop()
	var once sync.Once
	return s.out, func() {
		once.Do(func() {
			ev.mu.Lock()
			delete(ev.subs, s)
			ev.mu.Unlock()
			s.stop()
		})
	}
}

func (ev *events) publish(e Event) {
	ev.mu.Lock()
	defer ev.mu.Unlock()
	for s := range ev.subs {
		s.push(e)
	}
}

func (ev *events) closeAll() {
	ev.mu.Lock()
	subs := ev.subs
	ev.subs = nil
	ev.shut = true
	ev.mu.Unlock()
	for s := range subs {
		s.stop()
	}
}

func (s *subscriber) push(e Event) {
	s.mu.Lock()
	if e.Kind == EventProgress && len(s.queue) > 0 {
		last := &s.queue[len(s.queue)-1]
		if last.Kind == EventProgress && last.EntryID == e.EntryID && last.Step == e.Step {
			*last = e
			s.mu.Unlock()
			return
		}
	}
	s.queue = append(s.queue, e)
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func (s *subscriber) stop() {
	s.mu.Lock()
	if !s.closed {
		s.closed = true
		close(s.done)
	}
	s.mu.Unlock()
}

func (s *subscriber) loop() {
	defer close(s.out)
	for {
		s.mu.Lock()
		q := s.queue
		s.queue = nil
		s.mu.Unlock()
		for _, e := range q {
			select {
			case s.out <- e:
			case <-s.done:
				return
			}
		}
		select {
		case <-s.wake:
		case <-s.done:
			return
		}
	}
}
