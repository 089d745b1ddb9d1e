package mirror

import (
	"fmt"
	"io/fs"
	"os"
	"runtime"
)

// ownerOnly makes the mirror's files readable by their owner only, whatever
// the umask: it creates path with mode 0600 before SQLite opens it (SQLite
// would create it 0644, and gives its -wal and -shm files the database
// file's mode), and takes the group's and others' permissions off the
// three files an older engine left open to them.
func ownerOnly(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("open mirror %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("open mirror %s: %w", path, err)
	}
	if runtime.GOOS == "windows" {
		return nil // files there are guarded by the folder's ACL
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		fi, err := os.Stat(p)
		if err != nil {
			if os.IsNotExist(err) {
				continue
			}
			return fmt.Errorf("open mirror %s: %w", path, err)
		}
		if perm := fi.Mode().Perm(); perm&0o077 != 0 {
			if err := os.Chmod(p, perm&^fs.FileMode(0o077)); err != nil {
				return fmt.Errorf("open mirror %s: restrict the file to its owner: %w", path, err)
			}
		}
	}
	return nil
}
