//go:build windows

package outbox

import (
	"errors"
	"syscall"
)

// Windows' ways of saying the disk (or the user's share of it) is full.
const (
	errHandleDiskFull    = syscall.Errno(39)   // ERROR_HANDLE_DISK_FULL
	errDiskFullWindows   = syscall.Errno(112)  // ERROR_DISK_FULL
	errDiskQuotaExceeded = syscall.Errno(1295) // ERROR_DISK_QUOTA_EXCEEDED
)

func isQuotaErr(err error) bool {
	return errors.Is(err, errDiskFullWindows) || errors.Is(err, errHandleDiskFull) || errors.Is(err, errDiskQuotaExceeded)
}
