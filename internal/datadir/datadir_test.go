package datadir

import (
	"bytes"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
)

func TestDir(t *testing.T) {
	// An absolute path on the OS running the test (filepath.IsAbs is its).
	absData := "/data"
	if runtime.GOOS == "windows" {
		absData = `C:\data`
	}
	home := func() (string, error) { return "/home/dad", nil }
	noHome := func() (string, error) { return "", errors.New("no home") }
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	tests := []struct {
		name    string
		goos    string
		getenv  func(string) string
		home    func() (string, error)
		want    string
		wantErr bool
	}{
		{"Linux", "linux", env(), home, filepath.Join("/home/dad", ".local", "share", "Spark"), false},
		{"LinuxXDG", "linux", env("XDG_DATA_HOME", absData), home, filepath.Join(absData, "Spark"), false},
		{"LinuxXDGRelativeIgnored", "linux", env("XDG_DATA_HOME", "rel"), home, filepath.Join("/home/dad", ".local", "share", "Spark"), false},
		{"LinuxNoHome", "linux", env(), noHome, "", true},
		{"MacOS", "darwin", env(), home, filepath.Join("/home/dad", "Library", "Application Support", "Spark"), false},
		// The local, not the roaming, folder: originals must not roam.
		{"Windows", "windows", env("LocalAppData", `C:\Users\Dad\AppData\Local`, "AppData", `C:\Users\Dad\AppData\Roaming`), home,
			filepath.Join(`C:\Users\Dad\AppData\Local`, "Spark"), false},
		{"WindowsNoLocalAppData", "windows", env("AppData", `C:\Users\Dad\AppData\Roaming`), home, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := dir(tt.goos, tt.getenv, tt.home)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("dir() = %q, %v; want %q (error %v)", got, err, tt.want, tt.wantErr)
			}
			if err != nil && !strings.Contains(err.Error(), "--data") {
				t.Errorf("error %q does not say to pass --data", err)
			}
		})
	}
	if got := legacyDir("windows", env("AppData", `C:\R`)); got != filepath.Join(`C:\R`, "Spark") {
		t.Errorf("legacyDir(windows) = %q", got)
	}
	if got := legacyDir("linux", env("AppData", `C:\R`)); got != "" {
		t.Errorf("legacyDir(linux) = %q; want none", got)
	}
}

// oldData writes a data folder as Spark before this version left it in
// %AppData%\Spark: an outbox with a photo, the app's engine, settings and
// logs.
func oldData(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{
		"outbox/outbox.db":                   "db",
		"outbox/files/01ENTRY/original":      "photo bytes",
		"engine/ops.log":                     "log",
		"engine/media/sha256/ab/cd/abcd1234": "media",
		"settings.json":                      `{"engine":"local"}`,
		"logs/spark.log":                     "old log\n",
	}
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return files
}

// checkFiles fails unless dir holds exactly files.
func checkFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	var got, want []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			b, _ := os.ReadFile(p)
			got = append(got, filepath.ToSlash(rel)+"="+string(b))
		}
		return nil
	})
	for name, body := range files {
		want = append(want, name+"="+body)
	}
	sort.Strings(got)
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s holds\n%s\nwant\n%s", dir, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func testLog() (*slog.Logger, *bytes.Buffer) {
	var b bytes.Buffer
	return slog.New(slog.NewTextHandler(&b, nil)), &b
}

func TestMoveLegacy(t *testing.T) {
	t.Run("Moved", func(t *testing.T) {
		base := t.TempDir()
		old, dir := filepath.Join(base, "Roaming", "Spark"), filepath.Join(base, "Local", "Spark")
		files := oldData(t, old)
		log, buf := testLog()
		if got := moveLegacy(old, dir, log); got != dir {
			t.Fatalf("moveLegacy = %q; want %q", got, dir)
		}
		checkFiles(t, dir, files)
		if _, err := os.Stat(old); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the old folder is still there: %v", err)
		}
		if !strings.Contains(buf.String(), "moved Spark's data folder") {
			t.Errorf("log does not say it moved: %s", buf)
		}
		// The second start finds nothing to move.
		if got := moveLegacy(old, dir, log); got != dir {
			t.Errorf("second moveLegacy = %q", got)
		}
	})

	t.Run("IntoExistingFolder", func(t *testing.T) {
		// spark-engine's default data (LocalAppData\Spark\bench, say) was
		// there first: the items move one by one.
		base := t.TempDir()
		old, dir := filepath.Join(base, "Roaming", "Spark"), filepath.Join(base, "Local", "Spark")
		files := oldData(t, old)
		if err := os.MkdirAll(filepath.Join(dir, "bench"), 0o700); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, "bench", "x"), []byte("x"), 0o600)
		files["bench/x"] = "x"
		log, _ := testLog()
		if got := moveLegacy(old, dir, log); got != dir {
			t.Fatalf("moveLegacy = %q; want %q", got, dir)
		}
		checkFiles(t, dir, files)
		if _, err := os.Stat(old); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the old folder is still there: %v", err)
		}
	})

	t.Run("BothHoldAnEngine", func(t *testing.T) {
		base := t.TempDir()
		old, dir := filepath.Join(base, "Roaming", "Spark"), filepath.Join(base, "Local", "Spark")
		files := oldData(t, old)
		os.MkdirAll(filepath.Join(dir, "engine"), 0o700)
		log, buf := testLog()
		if got := moveLegacy(old, dir, log); got != old {
			t.Fatalf("moveLegacy = %q; want the old folder %q", got, old)
		}
		checkFiles(t, old, files)
		if !strings.Contains(buf.String(), "both the old and the new one hold engine") {
			t.Errorf("log does not say why: %s", buf)
		}
	})

	t.Run("RenameFailsUndone", func(t *testing.T) {
		// Another Spark still runs and holds a file in engine/: nothing
		// moves, this run uses the old folder, the next start tries again.
		base := t.TempDir()
		old, dir := filepath.Join(base, "Roaming", "Spark"), filepath.Join(base, "Local", "Spark")
		files := oldData(t, old)
		os.MkdirAll(filepath.Join(dir, "bench"), 0o700)
		t.Cleanup(func() { rename = os.Rename })
		rename = func(from, to string) error {
			if filepath.Base(from) == "logs" {
				return &os.LinkError{Op: "rename", Old: from, New: to, Err: errors.New("Access is denied.")}
			}
			return os.Rename(from, to)
		}
		log, buf := testLog()
		if got := moveLegacy(old, dir, log); got != old {
			t.Fatalf("moveLegacy = %q; want the old folder %q", got, old)
		}
		checkFiles(t, old, files)
		if got, _ := os.ReadDir(dir); len(got) != 1 {
			t.Errorf("the new folder holds %v; want only bench", got)
		}
		if !strings.Contains(buf.String(), "trying again at the next start") {
			t.Errorf("log does not say why: %s", buf)
		}
		rename = os.Rename
		if got := moveLegacy(old, dir, log); got != dir {
			t.Fatalf("moveLegacy at the next start = %q; want %q", got, dir)
		}
		checkFiles(t, dir, files)
	})

	t.Run("WholeRenameFails", func(t *testing.T) {
		base := t.TempDir()
		old, dir := filepath.Join(base, "Roaming", "Spark"), filepath.Join(base, "Local", "Spark")
		files := oldData(t, old)
		t.Cleanup(func() { rename = os.Rename })
		rename = func(from, to string) error {
			return &os.LinkError{Op: "rename", Old: from, New: to, Err: errors.New("The system cannot move the file to a different disk drive.")}
		}
		log, _ := testLog()
		if got := moveLegacy(old, dir, log); got != old {
			t.Fatalf("moveLegacy = %q; want the old folder", got)
		}
		checkFiles(t, old, files)
	})

	t.Run("NothingToMove", func(t *testing.T) {
		base := t.TempDir()
		old, dir := filepath.Join(base, "Roaming", "Spark"), filepath.Join(base, "Local", "Spark")
		log, _ := testLog()
		if got := moveLegacy(old, dir, log); got != dir {
			t.Errorf("no old folder: %q", got)
		}
		// Settings alone (no outbox) are not worth a move.
		os.MkdirAll(old, 0o700)
		os.WriteFile(filepath.Join(old, "settings.json"), nil, 0o600)
		if got := moveLegacy(old, dir, log); got != dir {
			t.Errorf("old folder without an outbox: %q", got)
		}
		if got := moveLegacy("", dir, log); got != dir {
			t.Errorf("no legacy place: %q", got)
		}
	})

	t.Run("NewAlreadyHasOutbox", func(t *testing.T) {
		base := t.TempDir()
		old, dir := filepath.Join(base, "Roaming", "Spark"), filepath.Join(base, "Local", "Spark")
		files := oldData(t, old)
		os.MkdirAll(filepath.Join(dir, "outbox"), 0o700)
		log, _ := testLog()
		if got := moveLegacy(old, dir, log); got != dir {
			t.Errorf("moveLegacy = %q; want the new folder", got)
		}
		checkFiles(t, old, files)
	})
}

// TestDefault_Windows moves a real %AppData%\Spark to %LocalAppData%\Spark
// through the environment, as the first start after an update does.
func TestDefault_Windows(t *testing.T) {
	if runtime.GOOS != "windows" {
		t.Skip("only Windows had another place before")
	}
	base := t.TempDir()
	t.Setenv("AppData", filepath.Join(base, "Roaming"))
	t.Setenv("LocalAppData", filepath.Join(base, "Local"))
	files := oldData(t, filepath.Join(base, "Roaming", "Spark"))
	got, err := Default(nil)
	if want := filepath.Join(base, "Local", "Spark"); err != nil || got != want {
		t.Fatalf("Default() = %q, %v; want %q", got, err, want)
	}
	checkFiles(t, got, files)
	if d, err := Dir(); err != nil || d != got {
		t.Errorf("Dir() = %q, %v; want %q", d, err, got)
	}
}
