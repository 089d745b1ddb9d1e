package main

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// stopSignals stop spark-engine gracefully: in-flight requests finish and
// the engine's log is synced before it exits.
//
//   - os.Interrupt: Ctrl+C; on Windows Ctrl+Break too.
//   - syscall.SIGTERM: a service manager or kill; on Windows, where no
//     process sends SIGTERM, Go's os/signal reports with it that the console
//     window is being closed, the user logs off or the system shuts down
//     (CTRL_CLOSE_EVENT, CTRL_LOGOFF_EVENT, CTRL_SHUTDOWN_EVENT). Windows
//     ends the process a few seconds later whatever it does, so serve then
//     gives requests less time (stopGrace).
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM}

// sessionEndGrace is what in-flight requests get when the console window
// is closed or the session ends (SIGTERM on Windows): Windows ends the
// process about five seconds after CTRL_CLOSE_EVENT, and the engine's log
// must be synced and closed before that.
const sessionEndGrace = 2 * time.Second

// stopCause is the cause of a context cancelled by a stop signal.
type stopCause struct{ sig os.Signal }

func (c stopCause) Error() string { return c.sig.String() + " signal received" }

// notifyStop returns a context cancelled, with a stopCause, by the first
// stop signal. stop releases the signals.
func notifyStop(parent context.Context) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, stopSignals...)
	go func() {
		select {
		case s := <-ch:
			cancel(stopCause{s})
		case <-ctx.Done():
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		cancel(nil)
	}
}

// stopSignal returns the signal that cancelled ctx, or nil.
func stopSignal(ctx context.Context) os.Signal {
	var c stopCause
	if errors.As(context.Cause(ctx), &c) {
		return c.sig
	}
	return nil
}
