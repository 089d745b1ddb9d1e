package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestWriteFile(t *testing.T) {
	tests := []struct {
		name    string
		old     []byte // the file before, or nil for none
		data    []byte
		perm    fs.FileMode
		wantErr bool
		// setup may change the directory and returns the path to write.
		setup func(tb testing.TB, dir string) string
	}{
		{name: "New", data: []byte("hello\n"), perm: 0o600},
		{name: "Replace", old: []byte("a much longer old text\n"), data: []byte("new\n"), perm: 0o600},
		{name: "Empty", old: []byte("old\n"), data: []byte{}, perm: 0o600},
		{name: "Perm0644", data: []byte("x"), perm: 0o644},
		{name: "ErrMissingDir", data: []byte("x"), perm: 0o600, wantErr: true,
			setup: func(tb testing.TB, dir string) string { return filepath.Join(dir, "gone", "f.json") }},
		{name: "ErrPathIsDir", data: []byte("x"), perm: 0o600, wantErr: true,
			setup: func(tb testing.TB, dir string) string {
				p := filepath.Join(dir, "f.json")
				if err := os.Mkdir(p, 0o700); err != nil {
					tb.Fatal(err)
				}
				// A file inside keeps the rename from replacing an empty
				// directory on systems that would.
				if err := os.WriteFile(filepath.Join(p, "inside"), nil, 0o600); err != nil {
					tb.Fatal(err)
				}
				return p
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "f.json")
			if tt.setup != nil {
				path = tt.setup(t, dir)
			}
			if tt.old != nil {
				if err := os.WriteFile(path, tt.old, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			err := WriteFile(path, tt.data, tt.perm)
			if (err != nil) != tt.wantErr {
				t.Fatalf("WriteFile() = %v; want error %v", err, tt.wantErr)
			}
			checkNoTemp(t, dir)
			if tt.wantErr {
				return
			}
			got, err := os.ReadFile(path)
			if err != nil || string(got) != string(tt.data) {
				t.Errorf("file holds %q (%v); want %q", got, err, tt.data)
			}
			if runtime.GOOS == "windows" {
				return
			}
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if got := fi.Mode().Perm(); got != tt.perm {
				t.Errorf("mode = %v; want %v", got, tt.perm)
			}
		})
	}
}

// TestWriteFile_ReadOnlyDir checks that a failed write leaves the old file
// as it was.
func TestWriteFile_ReadOnlyDir(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows has no read-only directories by mode")
	}
	if os.Geteuid() == 0 {
		t.Skip("running as root, which may write into a read-only directory")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "f.json")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o500); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o700) })
	err := WriteFile(path, []byte("new"), 0o600)
	if !errors.Is(err, fs.ErrPermission) {
		t.Errorf("WriteFile() = %v; want a permission error", err)
	}
	if got, _ := os.ReadFile(path); string(got) != "old" {
		t.Errorf("file holds %q after the failed write; want the old contents", got)
	}
	checkNoTemp(t, dir)
}

func TestSyncDir(t *testing.T) {
	tests := []struct {
		name    string
		path    func(dir string) string
		wantErr bool
	}{
		{name: "OK", path: func(dir string) string { return dir }},
		// Windows syncs nothing, so it cannot notice the directory is gone.
		{name: "ErrMissing", path: func(dir string) string { return filepath.Join(dir, "gone") }, wantErr: runtime.GOOS != "windows"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := SyncDir(tt.path(t.TempDir()))
			if (err != nil) != tt.wantErr {
				t.Fatalf("SyncDir() = %v; want error %v", err, tt.wantErr)
			}
			if tt.wantErr && !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("SyncDir() = %v; want it to wrap fs.ErrNotExist", err)
			}
		})
	}
}

// checkNoTemp fails when WriteFile left a temp file in dir.
func checkNoTemp(tb testing.TB, dir string) {
	tb.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		tb.Fatal(err)
	}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") {
			tb.Errorf("left behind %s", e.Name())
		}
	}
}
