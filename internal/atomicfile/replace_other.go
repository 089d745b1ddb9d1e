//go:build !windows

package atomicfile

import "os"

// replace renames tmp over path: atomic on POSIX, whoever has path open.
func replace(tmp, path string) error { return os.Rename(tmp, path) }

// ReadFile reads a file that WriteFile replaces. On POSIX systems it is
// os.ReadFile; on Windows it opens with delete sharing, so that a
// concurrent WriteFile can replace the file while it is being read.
func ReadFile(path string) ([]byte, error) { return os.ReadFile(path) }
