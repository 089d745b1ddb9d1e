package backup

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/sparkfamily/spark/internal/atomicfile"
	"github.com/sparkfamily/spark/internal/ctxio"
)

// Folder is a Target kept in a folder: each object a file at its name.
// A Put writes a temp file beside the object, fsyncs it, links it to the
// object's name (a link never replaces a file that is there), removes the
// temp name and fsyncs the folder; so an object is there whole or not at
// all, and never overwritten. Folder deletes nothing but its own temp
// files of a Put that failed.
type Folder struct {
	root string
}

var _ Target = (*Folder)(nil)

// link makes the object's name; tests swap it for one that fails as
// exFAT does.
var link = os.Link

// tempPrefix starts the names of a Put's temp files; List skips them.
const tempPrefix = ".put-"

// OpenFolder opens the folder root as a Target, making it if missing.
func OpenFolder(root string) (*Folder, error) {
	if err := os.MkdirAll(root, 0o700); err != nil {
		return nil, fmt.Errorf("backup: make the folder %s: %w", root, err)
	}
	return &Folder{root: root}, nil
}

func (f *Folder) String() string { return FileURL(f.root) }

// present checks that the folder is still there. An external disk
// unplugged leaves its mount point empty or gone: the copy is then
// unreachable, and never made again inside the mount point, on this
// computer's own disk.
func (f *Folder) present() error {
	fi, err := os.Stat(f.root)
	if err == nil && !fi.IsDir() {
		err = fmt.Errorf("%s is a file", f.root)
	}
	if err != nil {
		return fmt.Errorf("%w: the folder %s is not there (%v); plug in the disk or mount the share that holds it", ErrUnreachable, f.root, err)
	}
	return nil
}

func (f *Folder) path(name string) (string, error) {
	if !validName(name) {
		return "", fmt.Errorf("backup: %q is not an object name", name)
	}
	return filepath.Join(f.root, filepath.FromSlash(name)), nil
}

// Put implements Target.
func (f *Folder) Put(ctx context.Context, name string, body io.Reader, size int64, sum [32]byte) error {
	final, err := f.path(name)
	if err != nil {
		return err
	}
	if err := f.present(); err != nil {
		return err
	}
	dir := filepath.Dir(final)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("backup: put %s: %w", name, err)
	}
	tmp, err := os.CreateTemp(dir, tempPrefix+"*")
	if err != nil {
		return fmt.Errorf("backup: put %s: %w", name, err)
	}
	defer os.Remove(tmp.Name())
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(tmp, h), ctxio.Reader(ctx, body))
	if err == nil && (n != size || [32]byte(h.Sum(nil)) != sum) {
		err = fmt.Errorf("%w: %s: %d bytes read, %d expected", ErrBadBody, name, n, size)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("backup: put %s: %w", name, err)
	}
	if err := link(tmp.Name(), final); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return f.same(name, final, size, sum)
		}
		if _, serr := os.Stat(final); errors.Is(serr, fs.ErrNotExist) {
			return fmt.Errorf("backup: put %s: %w (the copy needs a file system that makes hard links, so that nothing is ever overwritten: exFAT and FAT cannot; use a disk formatted NTFS, APFS or ext4)", name, err)
		}
		return fmt.Errorf("backup: put %s: %w", name, err)
	}
	if err := atomicfile.SyncDir(dir); err != nil {
		return fmt.Errorf("backup: put %s: %w", name, err)
	}
	return nil
}

// same tells whether the object already at path holds the bytes of size
// and sum: "already there" (nil) or ErrConflict.
func (f *Folder) same(name, path string, size int64, sum [32]byte) error {
	fl, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("backup: put %s: %w", name, err)
	}
	defer fl.Close()
	h := sha256.New()
	n, err := io.Copy(h, fl)
	if err != nil {
		return fmt.Errorf("backup: put %s: read the object there: %w", name, err)
	}
	if n != size || [32]byte(h.Sum(nil)) != sum {
		return fmt.Errorf("%w: %s", ErrConflict, name)
	}
	return nil
}

// Get implements Target.
func (f *Folder) Get(_ context.Context, name string) (io.ReadCloser, error) {
	p, err := f.path(name)
	if err != nil {
		return nil, err
	}
	fl, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		if perr := f.present(); perr != nil {
			return nil, perr
		}
		return nil, fmt.Errorf("%w: %s", ErrNotFound, name)
	}
	if err != nil {
		return nil, fmt.Errorf("backup: get %s: %w", name, err)
	}
	return fl, nil
}

// Stat implements Target.
func (f *Folder) Stat(_ context.Context, name string) (int64, error) {
	p, err := f.path(name)
	if err != nil {
		return 0, err
	}
	fi, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) {
		if perr := f.present(); perr != nil {
			return 0, perr
		}
		return 0, fmt.Errorf("%w: %s", ErrNotFound, name)
	}
	if err != nil {
		return 0, fmt.Errorf("backup: stat %s: %w", name, err)
	}
	return fi.Size(), nil
}

// List implements Target. It reads one folder at a time, so it holds the
// names of one folder, not all of them: the copy keeps its objects in a
// few flat folders (media/, log/), whose listing is what it holds.
func (f *Folder) List(ctx context.Context, prefix string, fn func(string, int64) error) error {
	// The folder the prefix lies in, and the start of the names in it.
	dir, start := "", prefix
	if i := strings.LastIndexByte(prefix, '/'); i >= 0 {
		dir, start = prefix[:i], prefix[i+1:]
	}
	if err := f.present(); err != nil {
		return err
	}
	return f.list(ctx, dir, start, fn)
}

func (f *Folder) list(ctx context.Context, dir, start string, fn func(string, int64) error) error {
	ents, err := os.ReadDir(filepath.Join(f.root, filepath.FromSlash(dir)))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("backup: list %s: %w", dir, err)
	}
	// S3 lists in byte order of the whole name: a folder "a" sorts as
	// "a/", after "a-b" and before "a0".
	key := func(e fs.DirEntry) string {
		if e.IsDir() {
			return e.Name() + "/"
		}
		return e.Name()
	}
	sort.Slice(ents, func(i, j int) bool { return key(ents[i]) < key(ents[j]) })
	for _, e := range ents {
		if err := ctx.Err(); err != nil {
			return err
		}
		if !strings.HasPrefix(e.Name(), start) || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		name := e.Name()
		if dir != "" {
			name = dir + "/" + name
		}
		if e.IsDir() {
			if err := f.list(ctx, name, "", fn); err != nil {
				return err
			}
			continue
		}
		info, err := e.Info()
		if err != nil {
			return fmt.Errorf("backup: list %s: %w", name, err)
		}
		if err := fn(name, info.Size()); err != nil {
			return err
		}
	}
	return nil
}
