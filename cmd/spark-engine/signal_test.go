package main

import (
	"context"
	"io"
	"net/http"
	"os"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sparkfamily/spark/engine"
)

// TestStopGrace: Ctrl+C (and Ctrl+Break) give requests the full grace; on
// Windows SIGTERM means the console is closing or the session ending, and
// Windows ends the process about five seconds later, so requests get less
// and the log is synced in time.
func TestStopGrace(t *testing.T) {
	if got := stopGrace(os.Interrupt); got != shutdownGrace {
		t.Errorf("stopGrace(Interrupt) = %v; want %v", got, shutdownGrace)
	}
	want := shutdownGrace
	if runtime.GOOS == "windows" {
		want = sessionEndGrace
		if sessionEndGrace >= 4*time.Second {
			t.Errorf("sessionEndGrace = %v leaves no time to close the engine before Windows ends the process", sessionEndGrace)
		}
	}
	if got := stopGrace(syscall.SIGTERM); got != want {
		t.Errorf("stopGrace(SIGTERM) = %v; want %v", got, want)
	}
}

func TestStopSignal(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	if stopSignal(ctx) != nil {
		t.Error("stopSignal of a live context is not nil")
	}
	cancel(stopCause{syscall.SIGTERM})
	if got := stopSignal(ctx); got != syscall.SIGTERM {
		t.Errorf("stopSignal = %v; want SIGTERM", got)
	}
	ctx, stop := notifyStop(context.Background())
	stop()
	if stopSignal(ctx) != nil || ctx.Err() == nil {
		t.Errorf("after stop: signal %v, err %v; want none and cancelled", stopSignal(ctx), ctx.Err())
	}
}

// TestServe_StopInProcess runs serve in this process and stops it as each
// stop signal does once Go has delivered it (Ctrl+C or Ctrl+Break as
// os.Interrupt; on Windows a console close, logoff or shutdown as SIGTERM):
// the upload in flight finishes within the grace and the log is synced.
// Under Wine, which can send no console event to a test without a
// terminal, this is the Windows run's graceful stop.
func TestServe_StopInProcess(t *testing.T) {
	for _, sig := range []os.Signal{os.Interrupt, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			testServeStops(t, func(t *testing.T, args []string) serveRun {
				pr, pw := io.Pipe()
				ctx, cancel := context.WithCancelCause(context.Background())
				t.Cleanup(func() { cancel(nil) })
				done := make(chan error, 1)
				go func() {
					err := serveCmd(ctx, args[1:], pw)
					pw.Close()
					done <- err
				}()
				return serveRun{
					stderr: pr,
					stop:   func() error { cancel(stopCause{sig}); return nil },
					wait:   func() error { return <-done },
				}
			})
		})
	}
}

// TestServe_KilledKeepsAcknowledged runs serve as a process (under Wine, a
// Windows process answering over loopback), creates a moment, and kills
// it, as Windows does when a console close or logoff outlasts its few
// seconds: what serve acknowledged is in the log.
func TestServe_KilledKeepsAcknowledged(t *testing.T) {
	dir := t.TempDir()
	token, _, code := spark(t, "token", "add", "test", "--data", dir)
	if code != 0 {
		t.Fatal("token add failed")
	}
	s, _ := startServe(t, dir)
	resp, err := http.Get(s.base + "/v1/health")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("health: %d", resp.StatusCode)
	}
	if c, err := s.create(strings.TrimSpace(token), "before-kill"); err != nil || c != http.StatusCreated {
		t.Fatalf("create: %d, %v", c, err)
	}
	if err := s.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-s.done
	s.cmd.Wait()
	eng, err := engine.Open(context.Background(), engine.Config{Dir: dir})
	if err != nil {
		t.Fatalf("open the engine after the kill: %v", err)
	}
	defer eng.Close()
	ops, _, err := eng.Ops(context.Background(), 0, 10)
	if err != nil || len(ops) != 1 || ops[0].ClientRequestID != "before-kill" {
		t.Errorf("log after the kill holds %+v (%v); want the acknowledged create", ops, err)
	}
}
