package main

import (
	"os"
	"syscall"
	"time"
)

// stopGrace is how long in-flight requests get after sig: SIGTERM means
// the console window is closing or the session ending (sessionEndGrace).
func stopGrace(sig os.Signal) time.Duration {
	if sig == syscall.SIGTERM {
		return sessionEndGrace
	}
	return shutdownGrace
}
