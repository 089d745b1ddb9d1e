// Package crashfs is a vfs.FS for tests that simulates power cuts.
//
// It works over a real directory, the simulated disk, so that everything
// that reads the files directly (the engine serves media as *os.File, and
// SQLite keeps the mirror beside the log) sees them as a running system
// would. Beside the real files it keeps, in memory, what a power cut would
// leave, the way Pebble's MemFS does: for each file written through it,
// its current contents and its contents as of its last Sync; for each
// directory, its current entries and its entries as of its last SyncDir.
//
// Every call that changes something (a write, a sync, a create, a rename,
// a removal, a truncation, a directory sync) counts as one operation. At
// the operation chosen by CrashAt (or at Crash), the power goes off: the
// state a restart would find is taken, and that operation and every later
// one fail with ErrCrashed, as if the machine had stopped there. Reads keep
// working on the real files.
//
// WriteImage then writes what the restart finds into a new directory:
//   - a file holds what it held at its last Sync, and, when it was only
//     appended to since, some of what was appended: none, all, a prefix
//     (cut at any byte, like a torn sector, or at a 4 KiB block), or a
//     prefix followed by zeros up to its length (a file system that
//     recorded the new size but not all of the data); a file changed
//     otherwise since its last Sync holds its synced or its current
//     contents;
//   - a directory holds the entries it had at its last SyncDir, each
//     entry changed since (created, removed, renamed) kept or not at
//     random;
//   - files and directories never touched through the FS (the SQLite
//     mirror, the token file) are copied as they are when WriteImage runs,
//     as hard links where the system allows: change neither them nor the
//     disk's own afterwards but by replacing them (a test restarts on the
//     image and drops the old disk).
//
// Holes in the middle of what was appended (a later block on disk, an
// earlier one not) are not simulated: an append-only log cannot tell such a
// hole from damage, and the engine refuses to guess (see engine/oplog).
package crashfs

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/sparkfamily/spark/engine/vfs"
)

// ErrCrashed is returned by every operation at and after the crash.
var ErrCrashed = errors.New("crashfs: the power is off")

// FS is the simulated disk. Its methods are safe for concurrent use.
type FS struct {
	root string

	mu      sync.Mutex
	rng     *rand.Rand
	rootDir *dirNode
	ops     int
	crashAt int
	crashed bool
	img     *imgDir
	// snapAt are the operations before which Snapshot images are taken.
	snapAt map[int]bool
	snaps  []*Snapshot
}

// Snapshot is what a restart would find had the power gone off before
// operation Op, taken while the system went on running.
type Snapshot struct {
	Op  int
	img *imgDir
}

// ReadFile returns what the restart would find in the file at name (a
// path on the disk): ok is false when there would be no such file. Files
// never touched through the FS are read as they are now.
func (sn *Snapshot) ReadFile(name string, root string) (b []byte, ok bool, err error) {
	rel, err := filepath.Rel(root, name)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return nil, false, fmt.Errorf("crashfs: %s is not a file under %s", name, root)
	}
	img := sn.img
	parts := strings.Split(rel, string(filepath.Separator))
	for i, p := range parts {
		if !img.touched[p] {
			b, err := os.ReadFile(filepath.Join(append([]string{img.real}, parts[i:]...)...))
			if errors.Is(err, fs.ErrNotExist) {
				return nil, false, nil
			}
			return b, err == nil, err
		}
		if i == len(parts)-1 {
			b, ok := img.files[p]
			return b, ok, nil
		}
		if img = img.dirs[p]; img == nil {
			return nil, false, nil
		}
	}
	return nil, false, nil
}

// WriteTo writes what the restart would find into dst (created; it must
// not exist), as WriteImage does. The files never touched through the FS
// are copied as they are when WriteTo runs, which may be later than the
// snapshot: a file a running system changes outside the FS (a SQLite
// mirror) is not the one the snapshot's moment had.
func (sn *Snapshot) WriteTo(dst string) error {
	return writeImage(sn.img, dst)
}

var _ vfs.FS = (*FS)(nil)

type fileNode struct {
	data   []byte // current contents
	synced []byte // contents at the last Sync
	// appended is true while every change since the last Sync was an
	// append past the synced contents.
	appended bool
}

type dirNode struct {
	path    string            // where it is on the real disk
	cur     map[string]*entry // entries changed or seen through the FS; nil value: removed
	synced  map[string]*entry
	touched map[string]bool
}

type entry struct {
	f *fileNode
	d *dirNode
}

// New makes a simulated disk over the real directory root, which must
// exist; everything already in it counts as synced. seed drives the random
// choices of WriteImage.
func New(root string, seed uint64) (*FS, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("crashfs: %s is not a directory: %v", root, err)
	}
	return &FS{root: abs, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), rootDir: newDir(abs)}, nil
}

func newDir(path string) *dirNode {
	return &dirNode{path: path, cur: map[string]*entry{}, synced: map[string]*entry{}, touched: map[string]bool{}}
}

// Root returns the real directory.
func (s *FS) Root() string { return s.root }

// CrashAt makes the n-th operation from the start (1 is the first) the
// one at which the power goes off; 0 never.
func (s *FS) CrashAt(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.crashAt = n
}

// SnapshotAt asks for a Snapshot of the state just before each of the
// given operations (numbered from the start, like CrashAt's); Snapshots
// returns those taken.
func (s *FS) SnapshotAt(ops ...int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.snapAt == nil {
		s.snapAt = map[int]bool{}
	}
	for _, n := range ops {
		s.snapAt[n] = true
	}
}

// Snapshots returns the snapshots taken so far, oldest first.
func (s *FS) Snapshots() []*Snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.snaps)
}

// Crash turns the power off now.
func (s *FS) Crash() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.crashed {
		s.crash()
	}
}

// Crashed reports whether the power is off.
func (s *FS) Crashed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.crashed
}

// Ops returns how many operations have run.
func (s *FS) Ops() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ops
}

// tick counts an operation and turns the power off when its time has
// come. s.mu must be held.
func (s *FS) tick() error {
	if s.crashed {
		return ErrCrashed
	}
	s.ops++
	if s.snapAt[s.ops] {
		s.snaps = append(s.snaps, &Snapshot{Op: s.ops, img: s.imageOf(s.rootDir, map[*fileNode][]byte{})})
	}
	if s.crashAt > 0 && s.ops >= s.crashAt {
		s.crash()
		return ErrCrashed
	}
	return nil
}

// rel checks that name is on the simulated disk and returns its clean
// absolute path.
func (s *FS) rel(name string) (string, error) {
	abs, err := filepath.Abs(name)
	if err != nil {
		return "", err
	}
	if abs != s.root && !strings.HasPrefix(abs, s.root+string(filepath.Separator)) {
		return "", fmt.Errorf("crashfs: %s is not under %s", name, s.root)
	}
	return abs, nil
}

// dir returns the node of the directory at abs, registering it (and its
// parents) as synced if it was never seen. s.mu must be held.
func (s *FS) dir(abs string) (*dirNode, error) {
	if abs == s.root {
		return s.rootDir, nil
	}
	parent, err := s.dir(filepath.Dir(abs))
	if err != nil {
		return nil, err
	}
	e, err := s.lookup(parent, filepath.Base(abs))
	if err != nil {
		return nil, err
	}
	if e == nil || e.d == nil {
		return nil, fmt.Errorf("crashfs: %s: %w", abs, fs.ErrNotExist)
	}
	return e.d, nil
}

// lookup returns the entry name of dir d, registering what the real disk
// holds there as synced if the name was never seen; nil if there is none.
// s.mu must be held.
func (s *FS) lookup(d *dirNode, name string) (*entry, error) {
	if d.touched[name] {
		return d.cur[name], nil
	}
	p := filepath.Join(d.path, name)
	fi, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var e *entry
	if fi.IsDir() {
		e = &entry{d: newDir(p)}
	} else {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		e = &entry{f: &fileNode{data: b, synced: bytes.Clone(b), appended: true}}
	}
	d.touched[name] = true
	d.cur[name], d.synced[name] = e, e
	return e, nil
}

// parentOf returns the directory node holding abs and its base name.
func (s *FS) parentOf(abs string) (*dirNode, string, error) {
	if abs == s.root {
		return nil, "", fmt.Errorf("crashfs: cannot change the root %s itself", abs)
	}
	d, err := s.dir(filepath.Dir(abs))
	return d, filepath.Base(abs), err
}

// set records a changed entry of d.
func (d *dirNode) set(name string, e *entry) {
	d.touched[name] = true
	d.cur[name] = e
}

// OpenFile opens a file; flags as vfs.FS says.
func (s *FS) OpenFile(name string, flag int, perm fs.FileMode) (vfs.File, error) {
	abs, err := s.rel(name)
	if err != nil {
		return nil, err
	}
	if flag&(os.O_WRONLY|os.O_RDWR|os.O_CREATE|os.O_APPEND|os.O_TRUNC) == 0 {
		f, err := os.Open(abs)
		if err != nil {
			return nil, err
		}
		return &file{s: s, f: f, name: name}, nil
	}
	if flag&os.O_TRUNC != 0 {
		return nil, errors.New("crashfs: O_TRUNC is not supported")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if flag&os.O_CREATE != 0 {
		if err := s.tick(); err != nil {
			return nil, err
		}
	}
	d, base, err := s.parentOf(abs)
	if err != nil {
		return nil, err
	}
	e, err := s.lookup(d, base)
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(abs, flag, perm)
	if err != nil {
		return nil, err
	}
	if e == nil {
		e = &entry{f: &fileNode{appended: true}}
		d.set(base, e)
	} else if e.f == nil {
		f.Close()
		return nil, fmt.Errorf("crashfs: %s is a directory", abs)
	}
	return &file{s: s, f: f, name: name, node: e.f, appendMode: flag&os.O_APPEND != 0}, nil
}

// CreateTemp creates a new file in dir as os.CreateTemp does.
func (s *FS) CreateTemp(dir, pattern string) (vfs.File, error) {
	var out vfs.File
	err := s.step(dir, func(abs string) error {
		d, err := s.dir(abs)
		if err != nil {
			return err
		}
		f, err := os.CreateTemp(abs, pattern)
		if err != nil {
			return err
		}
		n := &fileNode{appended: true}
		d.set(filepath.Base(f.Name()), &entry{f: n})
		out = &file{s: s, f: f, name: f.Name(), node: n}
		return nil
	})
	return out, err
}

// Rename renames a file (directories are not supported).
func (s *FS) Rename(oldpath, newpath string) error {
	newAbs, err := s.rel(newpath)
	if err != nil {
		return err
	}
	return s.inParent(oldpath, func(oldAbs string, od *dirNode, obase string, e *entry) error {
		nd, nbase, err := s.parentOf(newAbs)
		if err != nil {
			return err
		}
		if e == nil {
			return &os.LinkError{Op: "rename", Old: oldpath, New: newpath, Err: fs.ErrNotExist}
		}
		if e.d != nil {
			return errors.New("crashfs: renaming a directory is not supported")
		}
		if _, err := s.lookup(nd, nbase); err != nil {
			return err
		}
		if err := os.Rename(oldAbs, newAbs); err != nil {
			return err
		}
		od.set(obase, nil)
		nd.set(nbase, e)
		return nil
	})
}

// Remove removes a file or an empty directory.
func (s *FS) Remove(name string) error {
	return s.remove(name, os.Remove)
}

// RemoveAll removes a file or a directory and all it holds.
func (s *FS) RemoveAll(name string) error {
	return s.remove(name, os.RemoveAll)
}

func (s *FS) remove(name string, rm func(string) error) error {
	return s.inParent(name, func(abs string, d *dirNode, base string, _ *entry) error {
		if err := rm(abs); err != nil {
			return err
		}
		d.set(base, nil)
		return nil
	})
}

// Mkdir makes a directory.
func (s *FS) Mkdir(name string, perm fs.FileMode) error {
	return s.inParent(name, func(abs string, d *dirNode, base string, _ *entry) error {
		if err := os.Mkdir(abs, perm); err != nil {
			return err
		}
		d.set(base, &entry{d: newDir(abs)})
		return nil
	})
}

// inParent runs one operation on name as one counted step under the lock:
// fn gets the real path, the parent directory's node, the base name and
// what it names (nil when nothing).
func (s *FS) inParent(name string, fn func(abs string, d *dirNode, base string, e *entry) error) error {
	return s.step(name, func(abs string) error {
		d, base, err := s.parentOf(abs)
		if err != nil {
			return err
		}
		e, err := s.lookup(d, base)
		if err != nil {
			return err
		}
		return fn(abs, d, base, e)
	})
}

// step runs fn on name's real path as one counted step under the lock.
func (s *FS) step(name string, fn func(abs string) error) error {
	abs, err := s.rel(name)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.tick(); err != nil {
		return err
	}
	return fn(abs)
}

// Stat stats the real file.
func (s *FS) Stat(name string) (fs.FileInfo, error) {
	abs, err := s.rel(name)
	if err != nil {
		return nil, err
	}
	return os.Stat(abs)
}

// ReadDir lists the real directory.
func (s *FS) ReadDir(name string) ([]fs.DirEntry, error) {
	abs, err := s.rel(name)
	if err != nil {
		return nil, err
	}
	return os.ReadDir(abs)
}

// SyncDir makes the directory's current entries the ones a crash keeps.
func (s *FS) SyncDir(name string) error {
	return s.step(name, func(abs string) error {
		d, err := s.dir(abs)
		if err != nil {
			return err
		}
		for name, e := range d.cur {
			d.synced[name] = e
		}
		return nil
	})
}

// file is an open file of the FS.
type file struct {
	s          *FS
	f          *os.File
	name       string
	node       *fileNode // nil when open for reading only
	appendMode bool
	pos        int64
}

func (f *file) Name() string                            { return f.name }
func (f *file) Read(p []byte) (int, error)              { return f.f.Read(p) }
func (f *file) ReadAt(p []byte, off int64) (int, error) { return f.f.ReadAt(p, off) }
func (f *file) Stat() (fs.FileInfo, error)              { return f.f.Stat() }
func (f *file) Close() error                            { return f.f.Close() }

func (f *file) Write(p []byte) (int, error) {
	if f.node == nil {
		return 0, fmt.Errorf("crashfs: %s is open for reading only", f.name)
	}
	s := f.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.tick(); err != nil {
		return 0, err
	}
	n, err := f.f.Write(p)
	nd := f.node
	off := f.pos
	if f.appendMode {
		off = int64(len(nd.data))
	}
	end := off + int64(n)
	if end > int64(len(nd.data)) {
		nd.data = append(nd.data, make([]byte, end-int64(len(nd.data)))...)
	}
	copy(nd.data[off:end], p[:n])
	if off < int64(len(nd.synced)) {
		nd.appended = false
	}
	f.pos = end
	return n, err
}

func (f *file) Sync() error {
	if f.node == nil {
		return nil
	}
	s := f.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.tick(); err != nil {
		return err
	}
	f.node.synced = bytes.Clone(f.node.data)
	f.node.appended = true
	return nil
}

func (f *file) Truncate(size int64) error {
	if f.node == nil {
		return fmt.Errorf("crashfs: %s is open for reading only", f.name)
	}
	s := f.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.tick(); err != nil {
		return err
	}
	if err := f.f.Truncate(size); err != nil {
		return err
	}
	nd := f.node
	if size <= int64(len(nd.data)) {
		nd.data = nd.data[:size:size]
	} else {
		nd.data = append(nd.data, make([]byte, size-int64(len(nd.data)))...)
	}
	if size < int64(len(nd.synced)) {
		nd.appended = false
	}
	return nil
}

// imgDir is a directory as the restart finds it: the entries tracked
// through the FS, and the real directory whose other entries are copied.
type imgDir struct {
	real    string
	touched map[string]bool
	files   map[string][]byte
	dirs    map[string]*imgDir
}

// crash takes the state a restart finds. s.mu must be held.
func (s *FS) crash() {
	s.crashed = true
	contents := map[*fileNode][]byte{}
	s.img = s.imageOf(s.rootDir, contents)
}

func (s *FS) imageOf(d *dirNode, contents map[*fileNode][]byte) *imgDir {
	img := &imgDir{real: d.path, touched: map[string]bool{}, files: map[string][]byte{}, dirs: map[string]*imgDir{}}
	// In name order, so that a seed gives the same image of the same state.
	for _, name := range slices.Sorted(maps.Keys(d.touched)) {
		img.touched[name] = true
		e := d.synced[name]
		if cur := d.cur[name]; cur != e && s.rng.IntN(2) == 0 {
			e = cur // a change not synced that reached the disk anyway
		}
		switch {
		case e == nil:
		case e.d != nil:
			img.dirs[name] = s.imageOf(e.d, contents)
		default:
			b, ok := contents[e.f]
			if !ok {
				b = s.contentsOf(e.f)
				contents[e.f] = b
			}
			img.files[name] = b
		}
	}
	return img
}

// contentsOf picks what a file holds after the crash.
func (s *FS) contentsOf(n *fileNode) []byte {
	syn, cur := n.synced, n.data
	if bytes.Equal(syn, cur) {
		return bytes.Clone(syn)
	}
	if !n.appended || len(cur) <= len(syn) {
		if s.rng.IntN(2) == 0 {
			return bytes.Clone(syn)
		}
		return bytes.Clone(cur)
	}
	extra := cur[len(syn):]
	var keep int
	zeros := false
	switch s.rng.IntN(5) {
	case 0: // nothing of it
	case 1: // all of it
		keep = len(extra)
	case 2: // whole 4 KiB blocks of it
		keep = min(len(extra), s.rng.IntN(len(extra)/4096+1)*4096)
	case 3: // a torn write: any prefix
		keep = s.rng.IntN(len(extra) + 1)
	case 4: // the new size, but only part of the data
		keep = s.rng.IntN(len(extra) + 1)
		zeros = true
	}
	out := append(bytes.Clone(syn), extra[:keep]...)
	if zeros {
		out = append(out, make([]byte, len(extra)-keep)...)
	}
	return out
}

// WriteImage writes what a restart after the crash finds into dst (created;
// it must not exist): the tracked files as the crash left them, and the
// untracked ones as they are now. The power must be off.
func (s *FS) WriteImage(dst string) error {
	s.mu.Lock()
	img := s.img
	s.mu.Unlock()
	if img == nil {
		return errors.New("crashfs: WriteImage before the crash")
	}
	return writeImage(img, dst)
}

func writeImage(img *imgDir, dst string) error {
	if err := os.Mkdir(dst, 0o700); err != nil {
		return err
	}
	for name, b := range img.files {
		if err := os.WriteFile(filepath.Join(dst, name), b, 0o600); err != nil {
			return err
		}
	}
	for name, sub := range img.dirs {
		if err := writeImage(sub, filepath.Join(dst, name)); err != nil {
			return err
		}
	}
	entries, err := os.ReadDir(img.real)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range entries {
		if img.touched[e.Name()] {
			continue
		}
		if err := copyTree(filepath.Join(img.real, e.Name()), filepath.Join(dst, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

// copyTree copies a file or a directory tree, untouched by the FS.
func copyTree(from, to string) error {
	fi, err := os.Lstat(from)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // removed meanwhile (a SQLite -shm file, say)
	}
	if err != nil {
		return err
	}
	if fi.IsDir() {
		if err := os.Mkdir(to, 0o700); err != nil {
			return err
		}
		entries, err := os.ReadDir(from)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if err := copyTree(filepath.Join(from, e.Name()), filepath.Join(to, e.Name())); err != nil {
				return err
			}
		}
		return nil
	}
	if !fi.Mode().IsRegular() {
		return nil
	}
	// A hard link where the system allows it: the files are not changed
	// in place but replaced (blobs, the log's copies) or belong to a
	// stopped system (the mirror), and linking is much cheaper.
	if err := os.Link(from, to); err == nil {
		return nil
	}
	in, err := os.Open(from)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
