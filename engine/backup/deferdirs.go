package backup

import (
	"os"
	"slices"
	"sync"

	"github.com/sparkfamily/spark/engine/vfs"
)

// deferredSyncs is the file system of a restore's media store. A photo
// is still staged in a temp file, hashed as it is written and renamed to
// its name only once whole, but the fsyncs are taken off the fetch: the
// photo's own fsync is done by a few goroutines beside the fetches, once
// it is under its name, and the syncs of the folders that name it (up to
// three a photo: its two shard folders, made for it, and the rename into
// the last) are put off, and each folder is synced once at the end
// (syncAll).
//
// That is safe because a restore's folder has no log until every photo
// and folder is durable: Restore writes the log under restoringLog and
// renames it to engine.LogFile only after wait and syncAll have
// returned. A crash before that leaves a folder with no log, which no
// engine takes for a restored one and which Restore refuses until it is
// emptied; a photo there whose bytes a power cut lost is never read.
type deferredSyncs struct {
	vfs.FS

	mu   sync.Mutex
	dirs map[string]bool
	err  error // the first fsync of a photo that failed

	start sync.Once
	stop  sync.Once
	files chan string
	wg    sync.WaitGroup
}

// syncers is how many photos' fsyncs are under way at once: a file
// system joins fsyncs issued together into one journal commit.
const syncers = 4

func (d *deferredSyncs) SyncDir(dir string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.dirs == nil {
		d.dirs = map[string]bool{}
	}
	d.dirs[dir] = true
	return nil
}

// CreateTemp gives a temp file whose Sync does nothing: the file is
// synced under its own name once renamed (Rename).
func (d *deferredSyncs) CreateTemp(dir, pattern string) (vfs.File, error) {
	f, err := d.FS.CreateTemp(dir, pattern)
	if err != nil {
		return nil, err
	}
	return unsynced{f}, nil
}

type unsynced struct{ vfs.File }

func (unsynced) Sync() error { return nil }

// Rename places a staged photo under its name and hands it to the
// syncers, waiting for one when all are busy (so that no more than a
// few names are held).
func (d *deferredSyncs) Rename(oldpath, newpath string) error {
	if err := d.FS.Rename(oldpath, newpath); err != nil {
		return err
	}
	d.start.Do(func() {
		d.files = make(chan string, syncers)
		for range syncers {
			d.wg.Go(func() {
				for p := range d.files {
					if err := syncFile(p); err != nil {
						d.mu.Lock()
						if d.err == nil {
							d.err = err
						}
						d.mu.Unlock()
					}
				}
			})
		}
	})
	d.files <- newpath
	return nil
}

// syncFile fsyncs the file at path (opened for writing, as Windows
// needs to flush it; nothing is written).
func syncFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// wait returns once every photo renamed is synced, with the first
// failure. No Rename may come after it; it may be called again.
func (d *deferredSyncs) wait() error {
	d.start.Do(func() {}) // no photo: no syncer
	d.stop.Do(func() {
		if d.files != nil {
			close(d.files)
		}
	})
	d.wg.Wait()
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.err
}

// syncAll syncs every folder put off, several at once. Their order does
// not matter: the folder is not a restored one until its log is renamed
// in, after they all are.
func (d *deferredSyncs) syncAll() error {
	d.mu.Lock()
	dirs := make([]string, 0, len(d.dirs))
	for dir := range d.dirs {
		dirs = append(dirs, dir)
	}
	d.dirs = nil
	d.mu.Unlock()
	slices.SortFunc(dirs, func(a, b string) int { return len(b) - len(a) })
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
		next  = make(chan string)
	)
	for range min(syncers, len(dirs)) {
		wg.Go(func() {
			for dir := range next {
				if err := d.FS.SyncDir(dir); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
				}
			}
		})
	}
	for _, dir := range dirs {
		next <- dir
	}
	close(next)
	wg.Wait()
	return first
}
