package atomicfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
	"unsafe"
)

var (
	kernel32        = syscall.NewLazyDLL("kernel32.dll")
	procMoveFileExW = kernel32.NewProc("MoveFileExW")
)

const (
	moveFileReplaceExisting = 0x1 // MOVEFILE_REPLACE_EXISTING
	moveFileWriteThrough    = 0x8 // MOVEFILE_WRITE_THROUGH

	errorAccessDenied     = syscall.Errno(5)  // ERROR_ACCESS_DENIED
	errorSharingViolation = syscall.Errno(32) // ERROR_SHARING_VIOLATION
	errorLockViolation    = syscall.Errno(33) // ERROR_LOCK_VIOLATION
)

// retryFor bounds how long replace and ReadFile keep trying while another
// process holds the file: long enough for a reader, a virus scan or a
// thumbnailer to let go, short enough that a caller is never stuck. The
// tries come often (every few milliseconds after the first), since a
// reader that polls leaves short gaps.
const retryFor = 2 * time.Second

// retry calls try until it succeeds, fails with an error that busy does
// not accept, or retryFor has passed; it returns try's last error.
func retry(try func() error, busy func(error) bool) error {
	deadline := time.Now().Add(retryFor)
	wait := time.Millisecond
	for {
		err := try()
		if err == nil || !busy(err) || time.Now().After(deadline) {
			return err
		}
		replaceRetries.Add(1)
		time.Sleep(wait)
		wait = min(2*wait, 16*time.Millisecond)
	}
}

// busy reports whether err means another process holds the file: a
// sharing violation, or "access denied", which Windows also answers while
// a file is open without delete sharing or is being deleted.
func busy(err error) bool {
	return errors.Is(err, errorSharingViolation) || errors.Is(err, errorAccessDenied) || errors.Is(err, errorLockViolation)
}

// replace moves tmp over path with MoveFileEx(MOVEFILE_REPLACE_EXISTING|
// MOVEFILE_WRITE_THROUGH), retrying for a bounded time while path is busy.
func replace(tmp, path string) error {
	from, err := syscall.UTF16PtrFromString(longPath(tmp))
	if err != nil {
		return &os.LinkError{Op: "rename", Old: tmp, New: path, Err: err}
	}
	to, err := syscall.UTF16PtrFromString(longPath(path))
	if err != nil {
		return &os.LinkError{Op: "rename", Old: tmp, New: path, Err: err}
	}
	err = retry(func() error {
		r, _, e := procMoveFileExW.Call(uintptr(unsafe.Pointer(from)), uintptr(unsafe.Pointer(to)),
			moveFileReplaceExisting|moveFileWriteThrough)
		if r != 0 {
			return nil
		}
		return e
	}, busy)
	if err != nil {
		return &os.LinkError{Op: "rename", Old: tmp, New: path, Err: err}
	}
	return nil
}

// Rename moves oldpath to newpath, replacing newpath, as os.Rename does;
// on Windows, where another process reading newpath makes the replace fail
// with "access denied", it waits for a short, bounded time as WriteFile
// does. It neither fsyncs the file nor its directory.
func Rename(oldpath, newpath string) error { return replace(oldpath, newpath) }

// Open opens a file for reading. On Windows it opens with FILE_SHARE_DELETE
// besides read and write sharing, which Go's os.Open leaves out, so that a
// concurrent WriteFile or Rename can replace the file while it is open; the
// reader keeps the old contents. A sharing violation (another program
// holding the file) is retried for a short, bounded time. Errors are
// *fs.PathError, so errors.Is(err, fs.ErrNotExist) works.
func Open(path string) (*os.File, error) {
	name, err := syscall.UTF16PtrFromString(longPath(path))
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	var h syscall.Handle
	err = retry(func() error {
		var err error
		h, err = syscall.CreateFile(name, syscall.GENERIC_READ,
			syscall.FILE_SHARE_READ|syscall.FILE_SHARE_WRITE|syscall.FILE_SHARE_DELETE,
			nil, syscall.OPEN_EXISTING, syscall.FILE_ATTRIBUTE_NORMAL|syscall.FILE_FLAG_BACKUP_SEMANTICS, 0)
		return err
	}, func(err error) bool { return errors.Is(err, errorSharingViolation) })
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(h), path), nil
}

// ReadFile reads a file that WriteFile replaces, opened with Open.
func ReadFile(path string) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: path, Err: err}
	}
	return b, nil
}

// longPath gives an absolute path of 248 characters or more the \\?\
// prefix, as Go's os package does, so that the calls made here directly
// reach paths past the old MAX_PATH limit.
func longPath(p string) string {
	if len(p) < 248 || strings.HasPrefix(p, `\\?\`) {
		return p
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	if strings.HasPrefix(abs, `\\`) { // \\server\share\... → \\?\UNC\server\share\...
		return `\\?\UNC\` + abs[2:]
	}
	return `\\?\` + abs
}
