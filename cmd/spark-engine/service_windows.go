package main

import (
	"context"
	"os"
	"time"

	"golang.org/x/sys/windows/svc"
)

// serviceName is the name `sc.exe create` gives spark-engine in the docs
// (svc.Run ignores it for a service in its own process).
const serviceName = "SparkEngine"

// serviceControl is a stop asked by the Service Control Manager, passed to
// serve like a signal (stopCause), so that it stops as on Ctrl+C.
type serviceControl string

func (c serviceControl) String() string { return string(c) }
func (serviceControl) Signal()          {}

const (
	// serviceStop: `sc.exe stop`, the Services console, or a service
	// manager's stop. The Service Control Manager waits for as long as the
	// stop says it needs (the WaitHint of StopPending).
	serviceStop = serviceControl("service stop")
	// serviceShutdown: the system is shutting down; Windows waits only a
	// few seconds for a service (WaitToKillServiceTimeout), as for a
	// console at logoff.
	serviceShutdown = serviceControl("system shutdown")
)

// runService runs the command line args (serve, as `sc.exe create`
// registers it) as a Windows service when the Service Control Manager
// started this process, and returns its exit code and true; otherwise it
// returns false at once.
func runService(args []string) (int, bool) {
	isService, err := svc.IsWindowsService()
	if err != nil || !isService {
		return 0, false
	}
	s := &service{run: func(ctx context.Context) int {
		return run(ctx, args, os.Stdout, os.Stderr)
	}}
	if err := svc.Run(serviceName, s); err != nil {
		return 1, true
	}
	return s.code, true
}

// service answers the Service Control Manager for spark-engine: Stop and
// Shutdown stop serve as Ctrl+C does (the requests in flight finish, the
// log is synced) within stopGrace, and Interrogate is answered with where
// the service stands.
type service struct {
	run  func(ctx context.Context) int // the command, stopped by cancelling ctx
	code int                           // its exit code, once Execute returned
}

// serviceAccepts are the controls spark-engine answers while it runs.
const serviceAccepts = svc.AcceptStop | svc.AcceptShutdown

// Execute is svc.Handler's: it runs the command, reports it running, and
// turns a Stop or Shutdown into serve's graceful stop, reporting
// StopPending until the command has returned. It keeps answering
// Interrogate meanwhile. A command that ends by itself (an error: the data
// folder in use, the address taken) ends the service with its exit code as
// a service-specific one.
func (s *service) Execute(args []string, requests <-chan svc.ChangeRequest, status chan<- svc.Status) (serviceSpecific bool, exitCode uint32) {
	status <- svc.Status{State: svc.StartPending}
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	done := make(chan int, 1)
	go func() { done <- s.run(ctx) }()
	current := svc.Status{State: svc.Running, Accepts: serviceAccepts}
	status <- current
	for {
		select {
		case s.code = <-done:
			if s.code != 0 {
				return true, uint32(s.code)
			}
			return false, 0
		case c := <-requests:
			switch c.Cmd {
			case svc.Interrogate:
				status <- current
			case svc.Stop, svc.Shutdown:
				if current.State == svc.StopPending {
					continue // stopping already
				}
				sig := serviceStop
				if c.Cmd == svc.Shutdown {
					sig = serviceShutdown
				}
				cancel(stopCause{sig})
				current = svc.Status{State: svc.StopPending, WaitHint: uint32((stopGrace(sig) + 5*time.Second) / time.Millisecond)}
				status <- current
			}
		}
	}
}
