//go:build !windows

package main

// runService is Windows' only: elsewhere a service manager runs serve as
// any process and stops it with SIGTERM.
func runService(args []string) (int, bool) { return 0, false }
