package backup

import (
	"slices"
	"sync"

	"github.com/sparkfamily/spark/engine/vfs"
)

// deferredDirs is the file system of a restore's media store: each photo
// is synced as it is written, as always, but the syncs of the folders
// that name them (up to three a photo: its two-level shard folders, made
// for it, and the rename into the last) are put off, and syncAll makes
// each folder durable once, before Restore says it is done. A restore
// cut short by a crash is begun again from an empty folder (Restore
// refuses any other), so a photo's name need not be on the disk the
// moment it is written, only before the restore answers.
type deferredDirs struct {
	vfs.FS
	mu   sync.Mutex
	dirs map[string]bool
}

func (d *deferredDirs) SyncDir(dir string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.dirs == nil {
		d.dirs = map[string]bool{}
	}
	d.dirs[dir] = true
	return nil
}

// syncAll syncs every folder put off, the deepest first, so that a
// folder's entry is durable once what it holds is.
func (d *deferredDirs) syncAll() error {
	d.mu.Lock()
	dirs := make([]string, 0, len(d.dirs))
	for dir := range d.dirs {
		dirs = append(dirs, dir)
	}
	d.dirs = nil
	d.mu.Unlock()
	slices.SortFunc(dirs, func(a, b string) int { return len(b) - len(a) })
	for _, dir := range dirs {
		if err := d.FS.SyncDir(dir); err != nil {
			return err
		}
	}
	return nil
}
