//go:build !windows

package atomicfile

import "os"

// replace renames tmp over path: atomic on POSIX, whoever has path open.
func replace(tmp, path string) error { return os.Rename(tmp, path) }

// Rename moves oldpath to newpath, replacing newpath: os.Rename. On
// Windows it waits for a short, bounded time while a reader holds newpath.
func Rename(oldpath, newpath string) error { return os.Rename(oldpath, newpath) }

// Open opens a file for reading: os.Open. On Windows it opens with delete
// sharing, so that a concurrent Rename can replace the file while it is open.
func Open(path string) (*os.File, error) { return os.Open(path) }

// ReadFile reads a file that WriteFile replaces. On POSIX systems it is
// os.ReadFile; on Windows it opens with delete sharing, so that a
// concurrent WriteFile can replace the file while it is being read.
func ReadFile(path string) ([]byte, error) { return os.ReadFile(path) }
