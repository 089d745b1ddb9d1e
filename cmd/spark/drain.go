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
	names := map[string]string{}
	for _, en := range ents {
		names[en.ID] = en.Name
	}
	bar := newProgress(e, "drain")
	bar.setTotal(int64(start.Pending))

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
	lastWait := ""
loop:
	for {
		check := false
		select {
		case ev, ok := <-events:
			if !ok {
				break loop
			}
			name := names[ev.EntryID]
			switch ev.Kind {
			case outbox.EventAdded:
				names[ev.EntryID] = ev.Entry.Name
				bar.addTotal(1)
			case outbox.EventProgress:
				bar.status(fmt.Sprintf("%s %s %s/%s", name, ev.Step, outbox.FormatSize(ev.Sent), outbox.FormatSize(ev.Total)))
			case outbox.EventStepDone:
				bar.status(fmt.Sprintf("%s %s done", name, ev.Step))
			case outbox.EventWaiting:
				// One line per distinct trouble: an engine that is down
				// would otherwise print one for every entry.
				// Network trouble names the entry's ids, so it is told
				// apart by its code alone.
				why := oneLine(ev.Reason)
				key := why
				if ev.Code == outbox.CodeNetwork {
					key = ev.Code
				}
				if key != lastWait {
					lastWait = key
					bar.line("waiting: %s (%s): %s; next try at %s", name, ev.Step, why, ev.NextTry.Local().Format("15:04:05"))
				} else {
					bar.status(fmt.Sprintf("%s waiting", name))
				}
			case outbox.EventParked:
				bar.line("parked: %s (%s): %s (%s)", name, ev.Step, oneLine(ev.Message), ev.Code)
				bar.add(1, name)
				check = true
			case outbox.EventDone:
				if !bar.tty {
					bar.line("delivered %s %s", ev.EntryID, name)
				}
				bar.add(1, name)
				check = true
			case outbox.EventReset:
				bar.line("%s: %s", name, ev.Message)
			}
		case <-tick.C:
			check = true
		case <-deadline:
			timedOut = true
			break loop
		case <-ctx.Done():
			break loop
		case err := <-ran:
			bar.done()
			return err
		}
		if check && !watch {
			c, err := o.Counts(ctx)
			if err == nil && c.Pending == 0 {
				break loop
			}
		}
	}
	stop()
	runErr := <-ran
	bar.done()
	if runErr != nil {
		return runErr
	}
	return report(context.WithoutCancel(ctx), o, start, timedOut, limit, e)
}

// report prints what the drain achieved and fails when anything is left.
func report(ctx context.Context, o *outbox.Outbox, start outbox.Counts, timedOut bool, limit time.Duration, e env) error {
	c, err := o.Counts(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%d delivered, %d pending, %d parked\n", c.Done-start.Done, c.Pending, c.Parked)
	if c.Pending == 0 && c.Parked == 0 {
		return nil
	}
	ents, err := o.Entries(ctx)
	if err != nil {
		return err
	}
	for _, en := range ents {
		switch en.State {
		case outbox.Parked:
			fmt.Fprintf(e.stderr, "parked %s %s: %s (%s); fix it, then 'spark retry %s', or 'spark discard %s --export DIR'\n",
				en.ID, en.Name, oneLine(en.LastError), en.LastCode, en.ID, en.ID)
		case outbox.Pending:
			why := "not tried yet"
			if en.LastError != "" {
				why = fmt.Sprintf("%s after %d tries", oneLine(en.LastError), en.Attempts)
			}
			fmt.Fprintf(e.stderr, "pending %s %s: %s\n", en.ID, en.Name, why)
		}
	}
	if c.Pending > 0 && timedOut {
		fmt.Fprintf(e.stderr, "still pending after %s; run 'spark drain' again (or with a longer --for) once the engine is reachable\n", limit)
	}
	return errReported
}
