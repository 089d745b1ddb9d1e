package main

import (
	"os"
	"syscall"
	"time"
)

// stopGrace is how long in-flight requests get after sig: SIGTERM means
// the console window is closing or the session ending, and a service's
// Shutdown the system shutting down (sessionEndGrace); Ctrl+C, Ctrl+Break
// and a service's Stop get the full grace.
func stopGrace(sig os.Signal) time.Duration {
	if sig == syscall.SIGTERM || sig == serviceShutdown {
		return sessionEndGrace
	}
	return shutdownGrace
}
