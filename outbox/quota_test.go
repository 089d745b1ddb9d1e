package outbox

import (
	"errors"
	"fmt"
	"io/fs"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// TestIsDiskFull: every way the OS says the disk or the quota is full is
// recognised, wrapped as the file layer wraps it, and turned into
// ErrDiskFull with a message a person can act on. (SQLite's own SQLITE_FULL
// is told by its result code, tested with a real database in
// TestIsDiskFull_SQLite.)
func TestIsDiskFull(t *testing.T) {
	full := []error{syscall.ENOSPC}
	if runtime.GOOS == "windows" {
		// ERROR_HANDLE_DISK_FULL, ERROR_DISK_FULL, ERROR_DISK_QUOTA_EXCEEDED
		full = append(full, syscall.Errno(39), syscall.Errno(112), syscall.Errno(1295))
	} else {
		full = append(full, syscall.EDQUOT)
	}
	for _, e := range full {
		for _, err := range []error{e, &fs.PathError{Op: "write", Path: "original", Err: e}, fmt.Errorf("capture: %w", e)} {
			if !isDiskFull(err) {
				t.Errorf("isDiskFull(%v) = false", err)
			}
			got := diskFull(err, 5<<20)
			if !errors.Is(got, ErrDiskFull) || !strings.Contains(got.Error(), "free some space") {
				t.Errorf("diskFull(%v) = %v; want ErrDiskFull saying to free some space", err, got)
			}
		}
	}
	for _, err := range []error{nil, syscall.Errno(5), fs.ErrPermission, errors.New("unexpected EOF")} {
		if isDiskFull(err) {
			t.Errorf("isDiskFull(%v) = true", err)
		}
	}
}
