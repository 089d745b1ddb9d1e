// Package vfs is the small file-system interface through which the engine's
// durable files are written: the op log and the media store. Production
// uses OS, the operating system's files; tests use crashfs, which remembers
// what has been fsync'ed and can simulate a power cut, dropping every write
// that had not reached the disk (as SIGKILL never does: the page cache
// survives a killed process).
//
// The interface follows Pebble's vfs: what the log and the store need, no
// more. Reads of a committed media blob for serving go straight to the
// operating system (the engine hands out an *os.File); crashfs keeps the
// real files current, so that works on it too.
package vfs

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/sparkfamily/spark/internal/atomicfile"
)

// File is an open file.
type File interface {
	io.Reader
	io.ReaderAt
	io.Writer
	io.Closer
	// Name is the name the file was opened with.
	Name() string
	Stat() (fs.FileInfo, error)
	// Sync makes the file's contents durable (fsync).
	Sync() error
	Truncate(size int64) error
}

// FS is a file system.
type FS interface {
	// OpenFile opens a file as os.OpenFile does. The flags used are
	// O_RDONLY, O_RDWR|O_CREATE|O_APPEND and O_WRONLY|O_CREATE|O_EXCL.
	OpenFile(name string, flag int, perm fs.FileMode) (File, error)
	// CreateTemp creates a new file in dir as os.CreateTemp does.
	CreateTemp(dir, pattern string) (File, error)
	Rename(oldpath, newpath string) error
	Remove(name string) error
	RemoveAll(name string) error
	Mkdir(name string, perm fs.FileMode) error
	Stat(name string) (fs.FileInfo, error)
	ReadDir(name string) ([]fs.DirEntry, error)
	// SyncDir makes the entries of directory name durable (the files
	// created, renamed or removed in it). Systems that cannot sync a
	// directory (Windows) do nothing.
	SyncDir(name string) error
}

// OS is the operating system's file system.
var OS FS = osFS{}

// Default returns fsys, or OS when fsys is nil.
func Default(fsys FS) FS {
	if fsys == nil {
		return OS
	}
	return fsys
}

type osFS struct{}

// OpenFile opens read-only files with atomicfile.Open: on Windows with
// delete sharing, as Spark's other readers of files that are replaced.
func (osFS) OpenFile(name string, flag int, perm fs.FileMode) (File, error) {
	var f *os.File
	var err error
	if flag == os.O_RDONLY {
		f, err = atomicfile.Open(name)
	} else {
		f, err = os.OpenFile(name, flag, perm)
	}
	if err != nil {
		return nil, err // *os.File is not a nil File
	}
	return f, nil
}

func (osFS) CreateTemp(dir, pattern string) (File, error) {
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return nil, err
	}
	return f, nil
}

// Rename waits, on Windows, for a short, bounded time while a reader holds
// newpath open (the sweep reads an upload's state while a PATCH replaces
// it): Windows refuses the replace meanwhile with "access denied".
func (osFS) Rename(oldpath, newpath string) error      { return atomicfile.Rename(oldpath, newpath) }
func (osFS) Remove(name string) error                  { return os.Remove(name) }
func (osFS) RemoveAll(name string) error               { return os.RemoveAll(name) }
func (osFS) Mkdir(name string, perm fs.FileMode) error { return os.Mkdir(name, perm) }
func (osFS) Stat(name string) (fs.FileInfo, error)     { return os.Stat(name) }
func (osFS) ReadDir(name string) ([]fs.DirEntry, error) {
	return os.ReadDir(name)
}
func (osFS) SyncDir(name string) error { return atomicfile.SyncDir(name) }

// MkdirAll creates dir and any missing parents, and syncs the parent of
// each directory it creates, so that the new directories survive a power
// cut. Directories that exist are left alone.
func MkdirAll(fsys FS, dir string, perm fs.FileMode) error {
	fi, err := fsys.Stat(dir)
	if err == nil {
		if !fi.IsDir() {
			return fmt.Errorf("mkdir %s: not a directory", dir)
		}
		return nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	parent := filepath.Dir(dir)
	if parent != dir {
		if err := MkdirAll(fsys, parent, perm); err != nil {
			return err
		}
	}
	if err := fsys.Mkdir(dir, perm); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return nil // made meanwhile by someone else
		}
		return err
	}
	return fsys.SyncDir(parent)
}
