package backup

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func put(tb testing.TB, t Target, name string, body []byte) error {
	tb.Helper()
	return t.Put(context.Background(), name, bytes.NewReader(body), int64(len(body)), sha256.Sum256(body))
}

func get(tb testing.TB, t Target, name string) []byte {
	tb.Helper()
	rc, err := t.Get(context.Background(), name)
	if err != nil {
		tb.Fatalf("Get(%s): %v", name, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// testTarget is the conformance suite every Target passes: the folder
// here, the S3 target next. open gives a new, empty target.
func testTarget(t *testing.T, open func(testing.TB) Target) {
	ctx := context.Background()
	t.Run("Put", func(t *testing.T) {
		f := open(t)
		if err := put(t, f, "media/ab", []byte("photo")); err != nil {
			t.Fatal(err)
		}
		if got := get(t, f, "media/ab"); string(got) != "photo" {
			t.Errorf("Get = %q, want photo", got)
		}
		if n, err := f.Stat(ctx, "media/ab"); err != nil || n != 5 {
			t.Errorf("Stat = %d, %v; want 5", n, err)
		}
		if err := put(t, f, "media/ab", []byte("photo")); err != nil {
			t.Fatalf("the same bytes again: %v, want nil (already there)", err)
		}
	})
	t.Run("ErrConflict", func(t *testing.T) {
		f := open(t)
		if err := put(t, f, "log/1", []byte("photo")); err != nil {
			t.Fatal(err)
		}
		err := put(t, f, "log/1", []byte("other"))
		if !errors.Is(err, ErrConflict) {
			t.Fatalf("other bytes over an object: %v, want ErrConflict", err)
		}
		if got := get(t, f, "log/1"); string(got) != "photo" {
			t.Errorf("after the refused put the object holds %q, want photo", got)
		}
	})
	t.Run("ErrBadBody", func(t *testing.T) {
		f := open(t)
		err := f.Put(ctx, "media/cd", strings.NewReader("torn"), 4, sha256.Sum256([]byte("whole")))
		if !errors.Is(err, ErrBadBody) {
			t.Fatalf("a body that does not match its sum: %v, want ErrBadBody", err)
		}
		if _, err := f.Stat(ctx, "media/cd"); !errors.Is(err, ErrNotFound) {
			t.Errorf("Stat after a refused body: %v, want ErrNotFound", err)
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		f := open(t)
		if _, err := f.Get(ctx, "log/none"); !errors.Is(err, ErrNotFound) {
			t.Errorf("Get: %v, want ErrNotFound", err)
		}
		if _, err := f.Stat(ctx, "log/none"); !errors.Is(err, ErrNotFound) {
			t.Errorf("Stat: %v, want ErrNotFound", err)
		}
	})
	t.Run("ErrBadName", func(t *testing.T) {
		f := open(t)
		for _, name := range []string{"", "../x", "a//b", "/a", ".put-x", "A"} {
			if err := put(t, f, name, []byte("x")); err == nil {
				t.Errorf("Put(%q) = nil, want an error", name)
			}
		}
	})
	t.Run("List", func(t *testing.T) {
		f := open(t)
		for _, n := range []string{"log/2", "log/1", "media/a", "spark-backup.json", "log0"} {
			if err := put(t, f, n, []byte(n)); err != nil {
				t.Fatal(err)
			}
		}
		list := func(prefix string) string {
			var got []string
			if err := f.List(ctx, prefix, func(n string, _ int64) error { got = append(got, n); return nil }); err != nil {
				t.Fatal(err)
			}
			return strings.Join(got, " ")
		}
		if got, want := list(""), "log/1 log/2 log0 media/a spark-backup.json"; got != want {
			t.Errorf("List(\"\") = %s, want %s", got, want)
		}
		if got, want := list("log/"), "log/1 log/2"; got != want {
			t.Errorf("List(log/) = %s, want %s", got, want)
		}
	})
}

func TestFolder(t *testing.T) {
	testTarget(t, func(tb testing.TB) Target { return mustFolder(tb, tb.TempDir()) })
}

// TestFolder_NoTempLeft: a Put, refused or not, leaves no temp file, and
// List skips one a crash left.
func TestFolder_NoTempLeft(t *testing.T) {
	root := t.TempDir()
	f := mustFolder(t, root)
	if err := put(t, f, "media/ab", []byte("photo")); err != nil {
		t.Fatal(err)
	}
	if err := put(t, f, "media/ab", []byte("other")); !errors.Is(err, ErrConflict) {
		t.Fatal(err)
	}
	if err := f.Put(context.Background(), "media/cd", strings.NewReader("torn"), 4, sha256.Sum256([]byte("whole"))); !errors.Is(err, ErrBadBody) {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(filepath.Join(root, "media"))
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 1 {
		t.Errorf("media/ holds %d files, want 1 (no temp file left): %v", len(ents), ents)
	}
}

// TestFolder_ListSkipsTemps: a temp file a crashed Put left is not an object.
func TestFolder_ListSkipsTemps(t *testing.T) {
	f, err := OpenFolder(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"log/2", "log/1", "media/a", "spark-backup.json", "log0"} {
		if err := put(t, f, n, []byte(n)); err != nil {
			t.Fatal(err)
		}
	}
	// A temp file a crashed Put left.
	if err := os.WriteFile(filepath.Join(f.root, "log", tempPrefix+"9"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	list := func(prefix string) []string {
		var got []string
		if err := f.List(context.Background(), prefix, func(n string, _ int64) error { got = append(got, n); return nil }); err != nil {
			t.Fatal(err)
		}
		return got
	}
	if got, want := strings.Join(list(""), " "), "log/1 log/2 log0 media/a spark-backup.json"; got != want {
		t.Errorf("List(\"\") = %s, want %s", got, want)
	}
	if got, want := strings.Join(list("log/"), " "), "log/1 log/2"; got != want {
		t.Errorf("List(log/) = %s, want %s", got, want)
	}
}

// TestFolder_NoHardLinks: on a file system without hard links (exFAT) a
// Put fails, stores nothing and says what disk to use.
func TestFolder_NoHardLinks(t *testing.T) {
	defer func(l func(string, string) error) { link = l }(link)
	link = func(o, n string) error { return &os.LinkError{Op: "link", Old: o, New: n, Err: errors.ErrUnsupported} }
	f := mustFolder(t, t.TempDir())
	err := put(t, f, "media/ab", []byte("photo"))
	if err == nil || !strings.Contains(err.Error(), "exFAT") {
		t.Fatalf("Put without hard links: %v, want a message naming the file system", err)
	}
	if _, err := f.Stat(context.Background(), "media/ab"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Stat after the failed Put: %v, want ErrNotFound", err)
	}
}

// TestOpen: a file URL made of a folder opens that folder; the rest are
// refused with what to write.
func TestOpen(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "copy")
	tg, err := Open(context.Background(), FileURL(dir), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if f, ok := tg.(*Folder); !ok || f.root != dir {
		t.Fatalf("Open(%s) = %#v, want the folder %s", FileURL(dir), tg, dir)
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		t.Fatalf("the folder was not made: %v", err)
	}
	for target, want := range map[string]string{
		"file://host/x":       "three slashes",
		"https://example.org": "neither",
		"file://":             "names no folder",
	} {
		if _, err := Open(context.Background(), target, Options{}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Open(%s) = %v, want an error saying %q", target, err, want)
		}
	}
}

// TestFolder_Unplugged: a folder target whose disk is unplugged is
// unreachable, and nothing is made in its place on this computer's disk.
func TestFolder_Unplugged(t *testing.T) {
	root := filepath.Join(t.TempDir(), "disk")
	f := mustFolder(t, root)
	if err := os.Remove(root); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	b := []byte("x")
	for name, err := range map[string]error{
		"Put":  f.Put(ctx, "media/"+strings.Repeat("a", 64), bytes.NewReader(b), 1, sha256.Sum256(b)),
		"List": f.List(ctx, "log/", func(string, int64) error { return nil }),
		"Get":  func() error { _, err := f.Get(ctx, ManifestName); return err }(),
		"Stat": func() error { _, err := f.Stat(ctx, ManifestName); return err }(),
	} {
		if !errors.Is(err, ErrUnreachable) {
			t.Errorf("%s with the disk away = %v, want ErrUnreachable", name, err)
		}
	}
	if _, err := os.Stat(root); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the folder was made again in the mount point: %v", err)
	}
}
