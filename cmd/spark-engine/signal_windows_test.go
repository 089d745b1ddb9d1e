package main

import (
	"os"
	"os/exec"
	"syscall"
	"testing"
)

var (
	kernel32                     = syscall.NewLazyDLL("kernel32.dll")
	procGenerateConsoleCtrlEvent = kernel32.NewProc("GenerateConsoleCtrlEvent")
	procAllocConsole             = kernel32.NewProc("AllocConsole")
	procGetConsoleWindow         = kernel32.NewProc("GetConsoleWindow")
)

// TestServe_CtrlBreak stops serve with Ctrl+Break, sent to its own process
// group as a console does: in-flight requests finish and the log is synced
// (os/signal reports Ctrl+C and Ctrl+Break as os.Interrupt on Windows).
func TestServe_CtrlBreak(t *testing.T) {
	// A console event reaches only processes on the sender's console; a
	// test run with its output in a pipe may have none, so it makes one,
	// which the child shares.
	if w, _, _ := procGetConsoleWindow.Call(); w == 0 {
		if os.Getenv("SPARK_UNDER_WINE") == "1" {
			t.Skip("under Wine: a test run without a terminal has a console with no window, and Wine refuses " +
				"GenerateConsoleCtrlEvent on it (Invalid access); on Windows the console window is there. " +
				"TestServe_StopInProcess runs the same stop under Wine with the signal Go delivers")
		}
		procAllocConsole.Call()
	}
	testServeStops(t, serveProcess(func(cmd *exec.Cmd) {
		cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
	}, func(cmd *exec.Cmd) error {
		r, _, err := procGenerateConsoleCtrlEvent.Call(syscall.CTRL_BREAK_EVENT, uintptr(cmd.Process.Pid))
		if r == 0 {
			return err
		}
		return nil
	}))
}
