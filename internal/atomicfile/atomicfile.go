// Package atomicfile writes files so that a crash leaves either the old
// contents or the new, never a part of them, and makes the directory
// entries it creates durable.
//
// Every state file Spark keeps (the engine's tokens and seats, the app's
// settings) goes through WriteFile, and is read back with ReadFile; code
// that streams into its own temp file and renames it (media blobs, outbox
// captures) calls SyncDir after the rename. The owner of each file calls
// SweepTemps when it opens it, under its lock, to remove the temp files of
// writes that a crash cut short.
//
// On Windows a file cannot be replaced while another process has it open
// without delete sharing, which Go's os.Open does not give: WriteFile
// replaces with MoveFileEx(MOVEFILE_REPLACE_EXISTING|MOVEFILE_WRITE_THROUGH)
// and retries for a short, bounded time on a sharing violation or "access
// denied" (a reader, an antivirus scan, a backup tool), and ReadFile opens
// with delete sharing so that Spark's own readers never stand in the way.
package atomicfile

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
)

// replaceRetries counts the times WriteFile waited for a busy file (on
// Windows), for tests.
var replaceRetries atomic.Int64

// WriteFile replaces path with data: it writes a temp file in path's
// directory, fsyncs and closes it, renames it over path (on Windows with
// MoveFileEx and a bounded retry while another process holds path open) and
// fsyncs the directory. The file gets exactly perm, whatever the umask; Windows
// ignores perm. When it fails before the rename, path is untouched and the
// temp file is removed; when the process dies before the rename, the temp
// file stays until path's owner calls SweepTemps.
func WriteFile(path string, data []byte, perm fs.FileMode) (err error) {
	dir := filepath.Dir(path)
	// The temp file sits beside path, since a rename only replaces a file
	// atomically within one file system; the leading dot keeps it out of
	// a plain listing. A crash leaves it behind: SweepTemps removes it.
	f, err := createTemp(path)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	renamed := false
	defer func() {
		if err != nil && !renamed {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if runtime.GOOS != "windows" {
		if err := f.Chmod(perm); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
	}
	if _, err := f.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("write %s: fsync: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := replace(tmp, path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	renamed = true
	if err := SyncDir(dir); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
