//go:build !windows

package main

import (
	"os"
	"time"
)

// stopGrace is how long in-flight requests get after sig: the same for
// every stop signal, since nothing ends the process meanwhile.
func stopGrace(sig os.Signal) time.Duration { return shutdownGrace }
