//go:build windows

package diskfull

import "syscall"

// codes are Windows' ways of saying the disk (or the user's share of it)
// is full, and Go's own ENOSPC (which some of its packages return).
var codes = []syscall.Errno{
	39,   // ERROR_HANDLE_DISK_FULL
	112,  // ERROR_DISK_FULL
	1295, // ERROR_DISK_QUOTA_EXCEEDED
	syscall.ENOSPC,
}
