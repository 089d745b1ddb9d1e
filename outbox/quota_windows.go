//go:build windows

package outbox

import (
	"errors"
	"syscall"
)

// errDiskFullWindows is ERROR_DISK_FULL.
const errDiskFullWindows = syscall.Errno(112)

func isQuotaErr(err error) bool { return errors.Is(err, errDiskFullWindows) }
