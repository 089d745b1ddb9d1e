package main

import (
	"context"
	"fmt"
	"time"

	"github.com/sparkfamily/spark/outbox"
)

// drain sends the outbox now: it ignores back-off timers, retries passing
// trouble for at most limit (unless watch), and fails with the reasons
// when anything is left pending or parked.
func drain(ctx context.Context, o *outbox.Outbox, limit time.Duration, watch bool, e env) error {
	events, unsubscribe := o.Subscribe()
	defer unsubscribe()
	start, err := o.Counts(ctx)
	if err != nil {
		return err
	}
	ents, err := o.Entries(ctx)
	if err != nil {
		return err
	}
	v := newDrainView(newProgress(e, "drain"), ents)
	v.bar.setTotal(int64(start.Pending))

	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	ran := make(chan error, 1)
	go func() { ran <- o.Run(runCtx) }()
	o.Kick()

	var deadline <-chan time.Time
	if !watch {
		t := time.NewTimer(limit)
		defer t.Stop()
		deadline = t.C
	}
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	timedOut := false
loop:
	for {
		check := false
		select {
		case ev, ok := <-events:
			if !ok {
				break loop
			}
			check = v.show(ev)
		case <-tick.C:
			check = true
		case <-deadline:
			timedOut = true
			break loop
		case <-ctx.Done():
			break loop
		case err := <-ran:
			v.bar.done()
			return err
		}
		if check && !watch && nothingPending(ctx, o) {
			break loop
		}
	}
	stop()
	runErr := <-ran
	// The drain has stopped, but the events of the last deliveries may not
	// have been read: every entry delivered gets its line from the outbox.
	rctx := context.WithoutCancel(ctx)
	if now, err := o.Entries(rctx); err == nil {
		v.catchUp(now)
	}
	v.bar.done()
	if runErr != nil {
		return runErr
	}
	return report(rctx, o, start, timedOut, limit, e)
}

// drainView renders a drain's events: a progress bar, a line for each
// delivered or parked entry, and one for each distinct trouble.
type drainView struct {
	bar      *progress
	names    map[string]string // entry id -> file name
	settled  map[string]bool   // delivered before the drain, or given a delivered line
	lastWait string
}

func newDrainView(bar *progress, ents []outbox.Entry) *drainView {
	v := &drainView{bar: bar, names: map[string]string{}, settled: map[string]bool{}}
	for _, en := range ents {
		v.names[en.ID] = en.Name
		if en.State == outbox.Done {
			v.settled[en.ID] = true
		}
	}
	return v
}

// show renders one event. It reports whether an entry left the queue
// (delivered or parked), when the drain may be done.
func (v *drainView) show(ev outbox.Event) bool {
	if ev.Write != nil {
		return v.showWrite(ev)
	}
	name := v.names[ev.EntryID]
	switch ev.Kind {
	case outbox.EventAdded:
		v.names[ev.EntryID] = ev.Entry.Name
		v.bar.addTotal(1)
	case outbox.EventProgress:
		v.bar.status(fmt.Sprintf("%s %s %s/%s", name, ev.Step, outbox.FormatSize(ev.Sent), outbox.FormatSize(ev.Total)))
	case outbox.EventStepDone:
		v.bar.status(fmt.Sprintf("%s %s done", name, ev.Step))
	case outbox.EventWaiting:
		v.waiting(ev, name)
	case outbox.EventParked:
		v.bar.line("parked: %s (%s): %s (%s)", name, ev.Step, oneLine(parkedWords(ev.Code, name, ev.Message)), ev.Code)
		v.bar.add(1, name)
		return true
	case outbox.EventDone:
		v.delivered(ev.EntryID, name)
		return true
	case outbox.EventReset:
		v.bar.line("%s: %s", name, ev.Message)
	}
	return false
}

// waiting prints one line per distinct trouble: an engine that is down
// would otherwise print one for every entry. Network trouble names the
// entry's ids, so it is told apart by its code alone.
func (v *drainView) waiting(ev outbox.Event, name string) {
	why := oneLine(ev.Reason)
	key := why
	if ev.Code == outbox.CodeNetwork {
		key = ev.Code
	}
	if key == v.lastWait {
		v.bar.status(fmt.Sprintf("%s waiting", name))
		return
	}
	v.lastWait = key
	v.bar.line("waiting: %s (%s): %s; next try at %s", name, ev.Step, why, ev.NextTry.Local().Format("15:04:05"))
}

// delivered counts a delivered entry, once, with its line (the bar shows
// it instead on a terminal).
func (v *drainView) delivered(id, name string) {
	if v.settled[id] {
		return
	}
	v.settled[id] = true
	if !v.bar.tty {
		v.bar.line("delivered %s %s", id, name)
	}
	v.bar.add(1, name)
}

// catchUp gives their line to the entries the outbox holds as delivered
// whose events were not read before the drain stopped.
func (v *drainView) catchUp(ents []outbox.Entry) {
	for _, en := range ents {
		if en.State == outbox.Done {
			v.delivered(en.ID, en.Name)
		}
	}
}

// showWrite renders an event of a write (a note, an edit, a phrase...).
func (v *drainView) showWrite(ev outbox.Event) bool {
	w := ev.Write
	switch ev.Kind {
	case outbox.EventWaiting:
		v.waiting(ev, w.Describe())
	case outbox.EventParked:
		v.bar.line("parked: %s %s: %s (%s)", w.ID, w.Describe(), oneLine(ev.Message), ev.Code)
		return true
	case outbox.EventDone:
		v.bar.line("sent %s %s", w.ID, w.Describe())
		return true
	}
	return false
}

// nothingPending reports whether no entry and no write waits to be sent.
func nothingPending(ctx context.Context, o *outbox.Outbox) bool {
	st, err := o.Status(ctx)
	if err != nil {
		return false
	}
	for _, c := range st.Counts {
		if c.Pending > 0 {
			return false
		}
	}
	return true
}

// report prints what the drain achieved and fails when anything is left.
func report(ctx context.Context, o *outbox.Outbox, start outbox.Counts, timedOut bool, limit time.Duration, e env) error {
	// One read of the queue: the lines below agree with each other.
	st, err := o.Status(ctx)
	if err != nil {
		return err
	}
	c, wc := st.Counts[outbox.KindPhoto], writeCounts(st.Counts)
	fmt.Fprintf(e.stdout, "%d delivered, %d pending, %d parked\n", c.Done-start.Done, c.Pending, c.Parked)
	if wc.Pending+wc.Parked > 0 {
		fmt.Fprintf(e.stdout, "other writes: %d waiting, %d parked\n", wc.Pending, wc.Parked)
	}
	if c.Pending == 0 && c.Parked == 0 && wc.Pending == 0 && wc.Parked == 0 {
		return nil
	}
	reportWrites(st.Writes, e)
	for _, en := range st.Photos {
		switch en.State {
		case outbox.Parked:
			fmt.Fprintf(e.stderr, "parked %s %s: %s (%s); fix it, then 'spark retry %s', or 'spark discard %s --export DIR'\n",
				en.ID, en.Name, oneLine(parkedWords(en.LastCode, en.Name, en.LastError)), en.LastCode, en.ID, en.ID)
		case outbox.Pending:
			why := "not tried yet"
			if en.LastError != "" {
				why = fmt.Sprintf("%s after %d tries", oneLine(en.LastError), en.Attempts)
			}
			fmt.Fprintf(e.stderr, "pending %s %s: %s\n", en.ID, en.Name, why)
		}
	}
	if c.Pending+wc.Pending > 0 && timedOut {
		fmt.Fprintf(e.stderr, "still pending after %s; run 'spark drain' again (or with a longer --for) once the engine is reachable\n", limit)
	}
	return errReported
}

// reportWrites lists the writes left waiting or parked.
func reportWrites(ws []outbox.Write, e env) {
	for _, w := range ws {
		if w.State == outbox.Parked {
			fmt.Fprintf(e.stderr, "parked %s %s: %s (%s); fix it, then 'spark retry %s', or 'spark discard %s'\n",
				w.ID, w.Describe(), oneLine(w.LastError), w.LastCode, w.ID, w.ID)
			continue
		}
		why := "not tried yet"
		if w.LastError != "" {
			why = fmt.Sprintf("%s after %d tries", oneLine(w.LastError), w.Attempts)
		}
		fmt.Fprintf(e.stderr, "pending %s %s: %s\n", w.ID, w.Describe(), why)
	}
}
