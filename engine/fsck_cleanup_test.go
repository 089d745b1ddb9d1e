package engine

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/sparkfamily/spark/engine/api"
)

// fsckData is a closed engine's data folder, good for fsck.
func fsckData(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	e := openEngine(t, dir)
	mustCreate(t, e, api.CreateMomentRequest{})
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

func fsckDirs(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), fsckPrefix) {
			names = append(names, e.Name())
		}
	}
	return names
}

// refuseRemoval makes fsck's removals fail until the test ends, as on
// Windows while another program holds a file in the folder open.
func refuseRemoval(t *testing.T) {
	removeAll = func(path string) error {
		return &os.PathError{Op: "unlinkat", Path: filepath.Join(path, "live-mirror.db"), Err: errors.New("The process cannot access the file because it is being used by another process.")}
	}
	t.Cleanup(func() { removeAll = os.RemoveAll })
}

// TestFsck_SaysWhatItCouldNotRemove: a temporary folder fsck cannot remove
// is named in its output (and fsck's verdict stands), and the next fsck,
// once the folder is old, removes it and says so.
func TestFsck_SaysWhatItCouldNotRemove(t *testing.T) {
	dir := fsckData(t)
	refuseRemoval(t)
	var out strings.Builder
	if ok, err := Fsck(ctxT(t), dir, &out); !ok || err != nil {
		t.Fatalf("Fsck = %v, %v\n%s", ok, err, out.String())
	}
	left := fsckDirs(t, dir)
	if len(left) != 1 {
		t.Fatalf("fsck folders after a refused removal: %q, want the one fsck made", left)
	}
	if !strings.Contains(out.String(), "could not remove fsck's temporary folder "+filepath.Join(dir, left[0])) || !strings.Contains(out.String(), "being used by another process") {
		t.Errorf("fsck's output does not name the folder it could not remove, and why:\n%s", out.String())
	}
	if _, ok := fsckDirTime(left[0]); !ok {
		t.Errorf("fsck's folder %q has no PID and time in its name", left[0])
	}

	removeAll = os.RemoveAll
	out.Reset()
	if ok, err := Fsck(ctxT(t), dir, &out); !ok || err != nil {
		t.Fatal(ok, err)
	}
	if got := fsckDirs(t, dir); len(got) != 1 {
		t.Errorf("a second fsck, right after: %q; want the first one's folder kept (it may still be running)", got)
	}
	defer func(d time.Duration) { fsckStaleAfter = d }(fsckStaleAfter)
	fsckStaleAfter = 0
	out.Reset()
	if ok, err := Fsck(ctxT(t), dir, &out); !ok || err != nil {
		t.Fatal(ok, err)
	}
	if got := fsckDirs(t, dir); len(got) != 0 {
		t.Errorf("fsck folders once stale: %q, want none", got)
	}
	if !strings.Contains(out.String(), "removed "+filepath.Join(dir, left[0])+", left by an earlier fsck") {
		t.Errorf("the sweep did not say what it removed:\n%s", out.String())
	}
}

// TestFsck_SweepsStaleFolders: fsck removes the temporary folders an
// earlier fsck left (killed before its clean-up), old by the time in their
// name or, for an older version's name, by their modification time, and
// keeps those of a fsck that may still run; one it cannot remove it names.
func TestFsck_SweepsStaleFolders(t *testing.T) {
	dir := fsckData(t)
	now := time.Now()
	old := now.Add(-48 * time.Hour)
	mk := func(name string, mtime time.Time) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Join(p, "sub"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(p, "sub", "live-mirror.db"), []byte("snapshot"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
		return name
	}
	stale := mk(fmt.Sprintf("fsck-4242-%d-123456", old.Unix()), now) // killed two days ago
	staleOld := mk("fsck-987654", old)                               // an older version's name
	running := mk(fmt.Sprintf("fsck-4343-%d-654321", now.Add(-time.Minute).Unix()), old)
	runningOld := mk("fsck-111111", now)
	notOurs := filepath.Join(dir, "fsck-notes.txt") // a file, not fsck's folder
	if err := os.WriteFile(notOurs, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}

	refuseRemoval(t)
	var out strings.Builder
	if ok, err := Fsck(ctxT(t), dir, &out); !ok || err != nil {
		t.Fatal(ok, err, out.String())
	}
	for _, name := range []string{stale, staleOld} {
		if !strings.Contains(out.String(), "could not remove "+filepath.Join(dir, name)+", left by an earlier fsck") {
			t.Errorf("fsck did not say it could not remove %s:\n%s", name, out.String())
		}
	}

	removeAll = os.RemoveAll
	out.Reset()
	if ok, err := Fsck(ctxT(t), dir, &out); !ok || err != nil {
		t.Fatal(ok, err, out.String())
	}
	got := strings.Join(fsckDirs(t, dir), " ")
	for _, name := range []string{stale, staleOld} {
		if strings.Contains(got, name) {
			t.Errorf("%s, left two days ago, is still there", name)
		}
		if !strings.Contains(out.String(), "removed "+filepath.Join(dir, name)) {
			t.Errorf("fsck did not say it removed %s:\n%s", name, out.String())
		}
	}
	// The first run's own folder could not be removed either: it is recent,
	// so kept with the two that may belong to a running fsck.
	for _, name := range []string{running, runningOld, "fsck-notes.txt"} {
		if !strings.Contains(got, name) {
			t.Errorf("%s (recent, or not a folder) was removed", name)
		}
	}
}

// TestFsck_FolderNamedLikeAURI: fsck opens the mirror of a data folder
// whose name holds "#", "?" (not on Windows) and "%" as the engine does (sqlitedb), not as
// a URI that ends at the "#" or the "?".
func TestFsck_FolderNamedLikeAURI(t *testing.T) {
	name := "Dad's #1 ?a=b 100%"
	if runtime.GOOS == "windows" {
		name = "Dad's #1 a=b 100%" // Windows allows no "?" in a name
	}
	dir := filepath.Join(t.TempDir(), name)
	e := openEngine(t, dir)
	mustCreate(t, e, api.CreateMomentRequest{})
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if ok, err := Fsck(ctxT(t), dir, &out); !ok || err != nil {
		t.Fatalf("Fsck of %s = %v, %v\n%s", dir, ok, err, out.String())
	}
}
