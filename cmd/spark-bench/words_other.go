//go:build !unix

package main

import "os/exec"

// ownGroup does nothing here: the words bench runs WebKitGTK, on Linux.
func ownGroup(*exec.Cmd) {}

// killGroup kills cmd alone.
func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return cmd.Process.Kill()
}
