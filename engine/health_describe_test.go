package engine

import (
	"fmt"
	"io/fs"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// TestDescribe_DiskFull: the health's reason says "the disk is full" for
// every number this OS has for it (diskfull.Is): on Windows that includes
// ERROR_DISK_QUOTA_EXCEEDED, which it once did not know.
func TestDescribe_DiskFull(t *testing.T) {
	full := []syscall.Errno{syscall.ENOSPC, syscall.EDQUOT}
	if runtime.GOOS == "windows" {
		full = []syscall.Errno{39, 112, 1295}
	}
	for _, errno := range full {
		err := fmt.Errorf("append: %w", &fs.PathError{Op: "write", Path: "log", Err: errno})
		if got := describe(err); !strings.HasPrefix(got, "the disk is full") {
			t.Errorf("describe(%v) = %q, want it to say the disk is full", err, got)
		}
	}
	if got := describe(&fs.PathError{Op: "write", Path: "log", Err: syscall.Errno(5)}); strings.Contains(got, "full") {
		t.Errorf("describe(errno 5) = %q", got)
	}
}
