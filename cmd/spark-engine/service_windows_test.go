package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/windows/svc"

	"github.com/sparkfamily/spark/internal/syncbuf"
)

// serviceRun runs a service handler's Execute as the Service Control
// Manager would: requests go in on a channel, and every status it reports
// is kept.
type serviceRun struct {
	requests chan svc.ChangeRequest
	mu       sync.Mutex
	statuses []svc.Status
	changed  chan struct{}
	done     chan [2]uint32 // service-specific (0 or 1), exit code
}

func startService(s *service) *serviceRun {
	r := &serviceRun{requests: make(chan svc.ChangeRequest), changed: make(chan struct{}, 100), done: make(chan [2]uint32, 1)}
	status := make(chan svc.Status)
	go func() {
		for st := range status {
			r.mu.Lock()
			r.statuses = append(r.statuses, st)
			r.mu.Unlock()
			r.changed <- struct{}{}
		}
	}()
	go func() {
		specific, code := s.Execute([]string{serviceName}, r.requests, status)
		b := uint32(0)
		if specific {
			b = 1
		}
		close(status)
		r.done <- [2]uint32{b, code}
	}()
	return r
}

// waitState waits until the service last reported state, and returns that
// status.
func (r *serviceRun) waitState(t *testing.T, state svc.State) svc.Status {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		r.mu.Lock()
		n := len(r.statuses)
		var last svc.Status
		if n > 0 {
			last = r.statuses[n-1]
		}
		r.mu.Unlock()
		if n > 0 && last.State == state {
			return last
		}
		select {
		case <-r.changed:
		case <-deadline:
			t.Fatalf("the service did not report state %d; statuses %+v", state, r.allStatuses())
		}
	}
}

func (r *serviceRun) allStatuses() []svc.Status {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]svc.Status(nil), r.statuses...)
}

// interrogate asks where the service stands and returns its answer.
func (r *serviceRun) interrogate(t *testing.T, current svc.Status) svc.Status {
	t.Helper()
	n := len(r.allStatuses())
	r.requests <- svc.ChangeRequest{Cmd: svc.Interrogate, CurrentStatus: current}
	deadline := time.After(10 * time.Second)
	for len(r.allStatuses()) == n {
		select {
		case <-r.changed:
		case <-deadline:
			t.Fatal("Interrogate was not answered")
		}
	}
	return r.allStatuses()[n]
}

// TestService_Stop runs serve under the service handler, as the Service
// Control Manager does when spark-engine is installed as a service, and
// stops it with a Stop and with a Shutdown: the upload in flight finishes
// within the grace, serve says its log is synced, and its log holds what
// it answered. Interrogate is answered while it runs, with Stop and
// Shutdown accepted. (The handler is a plain interface: this runs under
// Wine as on Windows.)
func TestService_Stop(t *testing.T) {
	for _, cmd := range []svc.Cmd{svc.Stop, svc.Shutdown} {
		t.Run(map[svc.Cmd]string{svc.Stop: "Stop", svc.Shutdown: "Shutdown"}[cmd], func(t *testing.T) {
			var r *serviceRun
			var errOut syncbuf.Buffer
			testServeStops(t, func(t *testing.T, args []string) serveRun {
				pr, pw := io.Pipe()
				r = startService(&service{run: func(ctx context.Context) int {
					code := run(ctx, args, io.Discard, io.MultiWriter(pw, &errOut))
					pw.Close()
					return code
				}})
				running := r.waitState(t, svc.Running)
				if running.Accepts != svc.AcceptStop|svc.AcceptShutdown {
					t.Errorf("the service accepts %v, want Stop and Shutdown", running.Accepts)
				}
				if got := r.interrogate(t, running); got != running {
					t.Errorf("Interrogate answered %+v, want %+v", got, running)
				}
				return serveRun{
					stderr: pr,
					stop: func() error {
						r.requests <- svc.ChangeRequest{Cmd: cmd}
						st := r.waitState(t, svc.StopPending)
						want := stopGrace(serviceStop)
						if cmd == svc.Shutdown {
							want = sessionEndGrace
						}
						if time.Duration(st.WaitHint)*time.Millisecond <= want {
							t.Errorf("StopPending's wait hint %dms is shorter than the grace %v", st.WaitHint, want)
						}
						// Asked again while stopping: answered, nothing else.
						if got := r.interrogate(t, st); got.State != svc.StopPending {
							t.Errorf("Interrogate while stopping answered %+v", got)
						}
						return nil
					},
					wait: func() error {
						select {
						case res := <-r.done:
							if res != [2]uint32{0, 0} {
								return fmt.Errorf("Execute returned (%d, %d), want (false, 0)", res[0], res[1])
							}
							return nil
						case <-time.After(time.Minute):
							return fmt.Errorf("Execute did not return after the stop")
						}
					},
				}
			})
			want := "signal=\"service stop\""
			if cmd == svc.Shutdown {
				want = "signal=\"system shutdown\""
			}
			if !strings.Contains(errOut.String(), want) {
				t.Errorf("serve's log does not name the stop (%s):\n%s", want, errOut.String())
			}
			got := r.allStatuses()
			if len(got) == 0 || got[0].State != svc.StartPending {
				t.Errorf("statuses %+v, want StartPending first", got)
			}
		})
	}
}

// TestService_CommandFails: a command that ends by itself with an error
// (here the data folder's engine already in use) ends the service with its
// exit code, as a service-specific one.
func TestService_CommandFails(t *testing.T) {
	r := startService(&service{run: func(ctx context.Context) int { return 1 }})
	select {
	case res := <-r.done:
		if res != [2]uint32{1, 1} {
			t.Errorf("Execute returned (%d, %d), want (true, 1)", res[0], res[1])
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Execute did not return when its command ended")
	}
}
