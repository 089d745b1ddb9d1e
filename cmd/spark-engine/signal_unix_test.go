//go:build !windows

package main

import (
	"os"
	"os/exec"
	"testing"
)

// TestServe_Interrupt stops serve with SIGINT, as Ctrl+C in a terminal does.
func TestServe_Interrupt(t *testing.T) {
	testServeStops(t, serveProcess(nil, func(cmd *exec.Cmd) error { return cmd.Process.Signal(os.Interrupt) }))
}
