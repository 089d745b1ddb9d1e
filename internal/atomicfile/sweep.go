package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/sparkfamily/spark/internal/dirlock"
)

// WriteFile's temp file for DIR/NAME is DIR/.NAME.tmpDIGITS: tempPrefix(NAME)
// and the decimal digits os.CreateTemp puts in place of the pattern's "*".
// createTemp makes it and isTemp recognizes it; nothing else spells it.

// tempPrefix is the start of the name of every temp file of base.
func tempPrefix(base string) string { return "." + base + ".tmp" }

// createTemp creates WriteFile's temp file for path, beside it.
func createTemp(path string) (*os.File, error) {
	return os.CreateTemp(filepath.Dir(path), tempPrefix(filepath.Base(path))+"*")
}

// isTemp reports whether name is a temp file createTemp made for base:
// tempPrefix(base) followed by one or more ASCII digits, and nothing else.
func isTemp(base, name string) bool {
	digits, ok := strings.CutPrefix(name, tempPrefix(base))
	if !ok || digits == "" {
		return false
	}
	for _, c := range []byte(digits) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// SweepTemps removes the temp files that a WriteFile of path cut short by a
// crash, a kill or a power cut left beside it: the regular files of path's
// folder named "." + path's name + ".tmp" + digits, exactly as WriteFile
// names them. It touches nothing else: not path, not a directory, not a
// name with anything besides the digits.
//
// Only path's owner may call it, at a moment no WriteFile of path can be
// running (at open, holding the lock that every writer of path holds):
// the temp file of a write in progress has the same name as a leftover,
// and removing it would fail that write.
//
// A missing folder has nothing to sweep. When some leftover cannot be
// removed the others still are, and the error names each one left.
func SweepTemps(path string) error {
	if path == "" {
		return errors.New("sweep temp files: no file named")
	}
	dir, base := filepath.Dir(path), filepath.Base(path)
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("sweep the temp files of %s: %w", path, err)
	}
	var errs []error
	for _, e := range ents {
		if !e.Type().IsRegular() || !isTemp(base, e.Name()) {
			continue
		}
		if err := os.Remove(filepath.Join(dir, e.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("sweep the temp files of %s: %w", path, err)
	}
	return nil
}

// SweepTempsUnlessHeld is SweepTemps for a file whose writers hold the
// lock lockName in lockDir (package dirlock) while they write it: it takes
// that lock without waiting, and while another process holds it, a write
// is in progress whose temp file looks like a leftover, so nothing is
// removed (a later sweep does it). A missing lockDir has nothing to sweep
// and is not made.
func SweepTempsUnlessHeld(path, lockDir, lockName, purpose string) error {
	if _, err := os.Stat(lockDir); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	l, err := dirlock.TryLock(lockDir, lockName, purpose)
	if errors.Is(err, dirlock.ErrHeld) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("sweep the temp files of %s: %w", path, err)
	}
	defer l.Release()
	return SweepTemps(path)
}
