//go:build !unix && !windows

package dirlock

import (
	"fmt"
	"os"
	"runtime"
)

func lockFile(f *os.File) error {
	return fmt.Errorf("locking a file is not supported on %s", runtime.GOOS)
}

func unlockFile(f *os.File) error { return nil }
