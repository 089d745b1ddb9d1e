package engine

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
)

// warnOpenFolder warns when other users of this computer can read or enter
// the data folder: it holds captions, readings and the tokens' hashes. The
// engine creates it 0700 and its files 0600, but leaves a folder the
// operator made as it is.
func warnOpenFolder(dir string, logger *slog.Logger) {
	if runtime.GOOS == "windows" {
		return // guarded by ACLs, not mode bits
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		logger.Warn(fmt.Sprintf("the data folder can be read by other users of this computer (mode %04o); it holds captions, readings and tokens: restrict it with `chmod 700 %s`", perm, dir),
			"dir", dir)
	}
}

// ownerOnly takes the group's and others' permissions off the data files
// an older engine (or a loose umask) left open to them: the log and what
// was cut from it, the tokens, the seats' file, the lock files, and every
// folder and file
// of the media store (files 0600, folders 0700, as the engine creates
// them). The mirror's files are seen to by mirror.Open; the data folder
// itself is the operator's, and only warned about (warnOpenFolder). On
// Windows the folder's ACL guards them: it does nothing.
func ownerOnly(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	files := []string{filepath.Join(dir, LogFile), filepath.Join(dir, TokensFile), filepath.Join(dir, ConfigFile)}
	for _, pattern := range []string{LogFile + ".cut-*", "*.lock"} {
		m, _ := filepath.Glob(filepath.Join(dir, pattern))
		files = append(files, m...)
	}
	for _, p := range files {
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("engine: restrict %s to its owner: %w", p, err)
		}
		if err := restrict(p, fi); err != nil {
			return err
		}
	}
	err := filepath.WalkDir(filepath.Join(dir, MediaDir), func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		return restrict(p, fi)
	})
	if err != nil {
		return fmt.Errorf("engine: restrict the media store to its owner: %w", err)
	}
	return nil
}

// restrict takes the group's and others' permissions off a file or folder
// (a symbolic link is left alone).
func restrict(p string, fi fs.FileInfo) error {
	if fi.Mode()&fs.ModeSymlink != 0 {
		return nil
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		if err := os.Chmod(p, perm&^0o077); err != nil {
			return fmt.Errorf("engine: restrict %s to its owner: %w", p, err)
		}
	}
	return nil
}
