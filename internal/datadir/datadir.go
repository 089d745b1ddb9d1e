// Package datadir decides where Spark keeps its data on this computer. Dir
// is the one place the whole program asks: the desktop app, the spark
// command and spark-engine's default --data all start from it.
//
// The folder holds outbox/ (the photos waiting to be sent, originals
// included), engine/ (the engine on this computer: its log, mirror and
// media), settings.json and logs/. It is
//
//	Windows  %LocalAppData%\Spark
//	macOS    ~/Library/Application Support/Spark
//	others   $XDG_DATA_HOME/Spark, or ~/.local/share/Spark
//
// On Windows it is the local, not the roaming, application data folder:
// gigabytes of originals must not travel with a roaming profile. Spark
// before this version kept the app's data in %AppData%\Spark; Default moves
// it on the first start (see Default).
package datadir

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
)

// Name is the folder's own name inside the OS's application data folder.
const Name = "Spark"

// Dir returns Spark's per-user data folder, without creating it. It fails
// only when the OS tells no home or application data folder; then the
// person must say where (--data, SPARK_DATA).
func Dir() (string, error) { return dir(runtime.GOOS, os.Getenv, os.UserHomeDir) }

func dir(goos string, getenv func(string) string, home func() (string, error)) (string, error) {
	switch goos {
	case "windows":
		if d := getenv("LocalAppData"); d != "" {
			return filepath.Join(d, Name), nil
		}
		return "", errors.New("find the user data folder: %LocalAppData% is not set; pass --data DIR")
	case "darwin", "ios":
		h, err := home()
		if err != nil {
			return "", fmt.Errorf("find the user data folder: %w; pass --data DIR", err)
		}
		return filepath.Join(h, "Library", "Application Support", Name), nil
	}
	if d := getenv("XDG_DATA_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, Name), nil
	}
	h, err := home()
	if err != nil {
		return "", fmt.Errorf("find the user data folder: %w; pass --data DIR", err)
	}
	return filepath.Join(h, ".local", "share", Name), nil
}

// legacyDir is where Spark before this version kept the app's data, when
// that differs from Dir: %AppData%\Spark on Windows, "" elsewhere.
func legacyDir(goos string, getenv func(string) string) string {
	if goos != "windows" {
		return ""
	}
	if d := getenv("AppData"); d != "" {
		return filepath.Join(d, Name)
	}
	return ""
}

// Default returns Dir, after moving there the data folder an older Spark
// left at the old place (%AppData%\Spark on Windows) if it holds an outbox
// and Dir has none yet. The move is all or nothing: when it cannot be done
// (another Spark still running holds a file, the two folders are on
// different drives, both hold the same item), everything stays where it
// was, Default returns the old folder for this run and says why in log,
// and the next start tries again. log may be nil.
func Default(log *slog.Logger) (string, error) {
	d, err := Dir()
	if err != nil {
		return "", err
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return moveLegacy(legacyDir(runtime.GOOS, os.Getenv), d, log), nil
}

// rename is os.Rename; tests make it fail.
var rename = os.Rename

// moveLegacy moves the data folder old to dir when old holds an outbox and
// dir does not, and returns the folder to use: dir, or old when the move
// could not be done.
func moveLegacy(old, dir string, log *slog.Logger) string {
	if old == "" || filepath.Clean(old) == filepath.Clean(dir) {
		return dir
	}
	if _, err := os.Stat(filepath.Join(old, "outbox")); err != nil {
		return dir // nothing to move
	}
	if _, err := os.Stat(filepath.Join(dir, "outbox")); err == nil {
		log.Warn("an old Spark data folder is still there; Spark uses the new one and leaves the old one alone", "old", old, "data", dir)
		return dir
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		log.Warn("cannot move Spark's data folder to the local application data folder; using the old place for now", "old", old, "data", dir, "err", err)
		return old
	}
	// The usual case: the new folder does not exist yet, and one rename
	// moves everything at once.
	if _, err := os.Lstat(dir); errors.Is(err, os.ErrNotExist) {
		if err := rename(old, dir); err != nil {
			log.Warn("cannot move Spark's data folder to the local application data folder; using the old place for now, and trying again at the next start",
				"old", old, "data", dir, "err", err)
			return old
		}
		log.Info("moved Spark's data folder to the local application data folder", "old", old, "data", dir)
		return dir
	}
	// The new folder exists (spark-engine made its engine there, say):
	// move item by item, none that is in both, and undo it all on failure.
	ents, err := os.ReadDir(old)
	if err != nil {
		log.Warn("cannot move Spark's data folder; using the old place for now", "old", old, "data", dir, "err", err)
		return old
	}
	for _, e := range ents {
		if _, err := os.Lstat(filepath.Join(dir, e.Name())); err == nil {
			log.Warn("cannot move Spark's data folder: both the old and the new one hold "+e.Name()+"; using the old place; move or merge them by hand, Spark closed",
				"old", old, "data", dir)
			return old
		}
	}
	var moved []string
	for _, e := range ents {
		if err := rename(filepath.Join(old, e.Name()), filepath.Join(dir, e.Name())); err != nil {
			for i := len(moved) - 1; i >= 0; i-- {
				if uerr := rename(filepath.Join(dir, moved[i]), filepath.Join(old, moved[i])); uerr != nil {
					log.Error("cannot undo a half-done move of Spark's data folder", "item", moved[i], "from", dir, "to", old, "err", uerr)
				}
			}
			log.Warn("cannot move Spark's data folder to the local application data folder; using the old place for now, and trying again at the next start",
				"old", old, "data", dir, "item", e.Name(), "err", err)
			return old
		}
		moved = append(moved, e.Name())
	}
	os.Remove(old) // empty now; a failure leaves an empty folder, harmless
	log.Info("moved Spark's data to the local application data folder", "old", old, "data", dir, "items", len(moved))
	return dir
}
