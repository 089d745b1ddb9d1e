package oplog

import (
	"errors"
	"runtime"
	"syscall"
)

// isSyncDirUnsupported reports an fsync of a directory refused by a system
// that does not support it (Windows cannot open a directory for syncing).
func isSyncDirUnsupported(err error) bool {
	return runtime.GOOS == "windows" || errors.Is(err, syscall.EINVAL)
}
