//go:build !windows

package diskfull

import "syscall"

// codes are the error numbers meaning the disk or the quota is full.
var codes = []syscall.Errno{syscall.ENOSPC, syscall.EDQUOT}
