// Package sqlitedbtest has the odd data folder names that the tests of
// "paths are data" share.
package sqlitedbtest

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// OddDir is a data folder name that once broke a DSN or may: the tests of
// "paths are data" (here, in the outbox, the mirror and the commands) make
// one folder of each under a temporary folder.
type OddDir struct {
	Label string // a short name for the sub-test
	Rel   string // the folder, relative to a temporary folder
}

// OddDirs lists the odd data folders this OS can name: "#", "%", "?",
// spaces, letters outside ASCII, SQL and URI punctuation, and a path longer
// than Windows' old 260-character limit. Windows allows no "?" in a file
// name, so that one is left out there, and said so in tb's log.
func OddDirs(tb testing.TB) []OddDir {
	long := make([]string, 5)
	for i := range long {
		long[i] = strings.Repeat(string(rune('a'+i)), 40) + " folder"
	}
	all := []OddDir{
		{"Hash", "hash#1"},
		{"Percent", "pct%41 100%"},
		{"Question", "q?mark=1"},
		{"Space", "with space"},
		{"NonASCII", "Jörg Ünal 日本"},
		{"Punctuation", "a;b&c=d'e+f"},
		{"Long", filepath.Join(long...)},
	}
	var out []OddDir
	for _, d := range all {
		if runtime.GOOS == "windows" && strings.ContainsAny(d.Rel, `?*<>|"`) {
			tb.Logf("%s (%q): Windows allows no such file name; left out there", d.Label, d.Rel)
			continue
		}
		out = append(out, d)
	}
	return out
}

// CheckNoStray fails tb when base holds anything but the first element of
// rel: a stray file at a path cut short at a "#" or "?".
func CheckNoStray(tb testing.TB, base, rel string) {
	tb.Helper()
	first := strings.Split(filepath.ToSlash(rel), "/")[0]
	ents, err := os.ReadDir(base)
	if err != nil {
		tb.Fatal(err)
	}
	for _, e := range ents {
		if e.Name() != first {
			tb.Errorf("stray %q beside %q", e.Name(), first)
		}
	}
}
