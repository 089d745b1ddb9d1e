package engine

import (
	"fmt"
	"log/slog"
	"os"
	"runtime"
)

// warnOpenFolder warns when other users of this computer can read or enter
// the data folder: it holds captions, readings and the tokens' hashes. The
// engine creates it 0700 and its files 0600, but leaves a folder the
// operator made as it is.
func warnOpenFolder(dir string, logger *slog.Logger) {
	if runtime.GOOS == "windows" {
		return // guarded by ACLs, not mode bits
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		logger.Warn(fmt.Sprintf("the data folder can be read by other users of this computer (mode %04o); it holds captions, readings and tokens: restrict it with `chmod 700 %s`", perm, dir),
			"dir", dir)
	}
}
