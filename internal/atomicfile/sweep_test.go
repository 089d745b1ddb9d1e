package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// TestSweepTemps plants files beside settings.json and checks which ones
// SweepTemps removes: only the temp files WriteFile makes for that file
// (".settings.json.tmp" and the digits os.CreateTemp adds), never the file
// itself, another file's temp files or a name that merely looks alike.
func TestSweepTemps(t *testing.T) {
	tests := []struct {
		name   string
		file   string // planted beside settings.json
		dir    bool   // planted as a directory
		remove bool
	}{
		{name: "Digits", file: ".settings.json.tmp12345", remove: true},
		{name: "OneDigit", file: ".settings.json.tmp0", remove: true},
		{name: "MaxUint32", file: ".settings.json.tmp4294967295", remove: true},
		{name: "Target", file: "settings.json"},
		{name: "NoDigits", file: ".settings.json.tmp"},
		{name: "Letters", file: ".settings.json.tmpabc"},
		{name: "DigitsThenLetter", file: ".settings.json.tmp123a"},
		{name: "DigitsThenSuffix", file: ".settings.json.tmp123.bak"},
		{name: "Space", file: ".settings.json.tmp 123"},
		{name: "Sign", file: ".settings.json.tmp-123"},
		{name: "NoDot", file: "settings.json.tmp123"},
		{name: "TwoDots", file: "..settings.json.tmp123"},
		{name: "OtherFile", file: ".engine-address.tmp123"},
		{name: "LongerName", file: ".settings.json.old.tmp123"},
		{name: "PrefixOfName", file: ".settings.tmp123"},
		{name: "OtherCase", file: ".Settings.json.tmp123"},
		{name: "TmpUpper", file: ".settings.json.TMP123"},
		{name: "Directory", file: ".settings.json.tmp777", dir: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "settings.json")
			if tt.file != "settings.json" {
				if err := os.WriteFile(path, []byte("{}\n"), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			planted := filepath.Join(dir, tt.file)
			var err error
			if tt.dir {
				err = os.Mkdir(planted, 0o700)
			} else {
				err = os.WriteFile(planted, []byte("{}\n"), 0o600)
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := SweepTemps(path); err != nil {
				t.Fatalf("SweepTemps() = %v", err)
			}
			_, err = os.Lstat(planted)
			switch {
			case tt.remove && !errors.Is(err, fs.ErrNotExist):
				t.Errorf("%s is still there (%v); want it removed", tt.file, err)
			case !tt.remove && err != nil:
				t.Errorf("%s was removed (%v); want it kept", tt.file, err)
			}
			if b, err := os.ReadFile(path); err != nil || string(b) != "{}\n" {
				t.Errorf("settings.json holds %q (%v) after the sweep; want it untouched", b, err)
			}
		})
	}
}

// TestSweepTemps_Many removes every leftover at once and keeps the rest.
func TestSweepTemps_Many(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "tokens.json")
	files := []string{"tokens.json", ".tokens.json.tmp1", ".tokens.json.tmp22", ".tokens.json.tmp333", ".tokens.json.tmp", "tokens.lock", ".engine.json.tmp4"}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(dir, f), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := SweepTemps(path); err != nil {
		t.Fatalf("SweepTemps() = %v", err)
	}
	want := []string{".engine.json.tmp4", ".tokens.json.tmp", "tokens.json", "tokens.lock"}
	if got := names(t, dir); !slices.Equal(got, want) {
		t.Errorf("after the sweep the folder holds %q; want %q", got, want)
	}
}

// TestSweepTemps_CreateTemp makes temp files exactly as WriteFile does
// (createTemp, that is os.CreateTemp with WriteFile's pattern) and checks
// that the sweep removes each of them: the name WriteFile makes and the
// name the sweep looks for cannot drift apart.
func TestSweepTemps_CreateTemp(t *testing.T) {
	for _, base := range []string{"settings.json", "engine-address", "push-0123456789abcdef0123456789abcdef.json", "a*b.json", "tokens"} {
		t.Run(base, func(t *testing.T) {
			if strings.Contains(base, "*") && runtime.GOOS == "windows" {
				t.Skip("Windows allows no * in a file's name")
			}
			dir := t.TempDir()
			path := filepath.Join(dir, base)
			if err := os.WriteFile(path, []byte("x"), 0o600); err != nil {
				t.Fatal(err)
			}
			for range 50 {
				f, err := createTemp(path)
				if err != nil {
					t.Fatal(err)
				}
				f.Close()
				if !isTemp(base, filepath.Base(f.Name())) {
					t.Fatalf("WriteFile's temp file %s does not match the sweep's pattern", f.Name())
				}
			}
			if err := SweepTemps(path); err != nil {
				t.Fatalf("SweepTemps() = %v", err)
			}
			if got := names(t, dir); !slices.Equal(got, []string{base}) {
				t.Errorf("after the sweep the folder holds %q; want only %s", got, base)
			}
		})
	}
}

// TestSweepTemps_WriteFileAfter: the target written again after a sweep
// is whole, and WriteFile leaves nothing the sweep would have to find.
func TestSweepTemps_WriteFileAfter(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "engine-id.json")
	if err := os.WriteFile(filepath.Join(dir, ".engine-id.json.tmp99"), []byte("part"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := SweepTemps(path); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, []byte("whole\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	checkNoTemp(t, dir)
	if b, err := ReadFile(path); err != nil || string(b) != "whole\n" {
		t.Errorf("file holds %q (%v)", b, err)
	}
}

func TestSweepTemps_Errors(t *testing.T) {
	dir := t.TempDir()
	if err := SweepTemps(filepath.Join(dir, "gone", "settings.json")); err != nil {
		t.Errorf("SweepTemps(in a missing folder) = %v; want nil", err)
	}
	if err := SweepTemps(""); err == nil {
		t.Error("SweepTemps(\"\") succeeded; want an error")
	}
	// A file where the folder should be.
	notDir := filepath.Join(dir, "file")
	if err := os.WriteFile(notDir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	// Windows says such a path is not found, which has nothing to sweep.
	if err := SweepTemps(filepath.Join(notDir, "settings.json")); err == nil && runtime.GOOS != "windows" {
		t.Error("SweepTemps(under a file) succeeded; want an error")
	}
}

// TestSweepTemps_CannotRemove: a leftover that cannot be removed is named
// in the error, and the others still go.
func TestSweepTemps_CannotRemove(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows has no read-only directories by mode")
	}
	if os.Geteuid() == 0 {
		t.Skip("running as root, which may remove from a read-only directory")
	}
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	left := filepath.Join(sub, ".f.json.tmp5")
	if err := os.WriteFile(left, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(sub, 0o500); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(sub, 0o700) })
	err := SweepTemps(filepath.Join(sub, "f.json"))
	if !errors.Is(err, fs.ErrPermission) {
		t.Errorf("SweepTemps() = %v; want a permission error", err)
	}
	if _, serr := os.Stat(left); serr != nil {
		t.Errorf("the leftover is gone (%v) though its folder is read-only", serr)
	}
}

// names lists dir, sorted.
func names(tb testing.TB, dir string) []string {
	tb.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		tb.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	slices.Sort(out)
	return out
}
