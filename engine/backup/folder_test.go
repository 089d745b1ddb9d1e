package backup

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"io"
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

func TestFolder_Put(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	f, err := OpenFolder(root)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("OK", func(t *testing.T) {
		if err := put(t, f, "media/ab", []byte("photo")); err != nil {
			t.Fatal(err)
		}
		if got := get(t, f, "media/ab"); string(got) != "photo" {
			t.Errorf("Get = %q, want photo", got)
		}
		if n, err := f.Stat(ctx, "media/ab"); err != nil || n != 5 {
			t.Errorf("Stat = %d, %v; want 5", n, err)
		}
	})
	t.Run("AlreadyThere", func(t *testing.T) {
		if err := put(t, f, "media/ab", []byte("photo")); err != nil {
			t.Fatalf("the same bytes again: %v, want nil", err)
		}
	})
	t.Run("ErrConflict", func(t *testing.T) {
		err := put(t, f, "media/ab", []byte("other"))
		if !errors.Is(err, ErrConflict) {
			t.Fatalf("other bytes over an object: %v, want ErrConflict", err)
		}
		if got := get(t, f, "media/ab"); string(got) != "photo" {
			t.Errorf("after the refused put the object holds %q, want photo", got)
		}
	})
	t.Run("ErrBadBody", func(t *testing.T) {
		err := f.Put(ctx, "media/cd", strings.NewReader("torn"), 4, sha256.Sum256([]byte("whole")))
		if !errors.Is(err, ErrBadBody) {
			t.Fatalf("a body that does not match its sum: %v, want ErrBadBody", err)
		}
		if _, err := f.Stat(ctx, "media/cd"); !errors.Is(err, ErrNotFound) {
			t.Errorf("Stat after a refused body: %v, want ErrNotFound", err)
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		if _, err := f.Get(ctx, "log/none"); !errors.Is(err, ErrNotFound) {
			t.Errorf("Get: %v, want ErrNotFound", err)
		}
	})
	t.Run("ErrBadName", func(t *testing.T) {
		for _, name := range []string{"", "../x", "a//b", "/a", ".put-x", "A"} {
			if err := put(t, f, name, []byte("x")); err == nil {
				t.Errorf("Put(%q) = nil, want an error", name)
			}
		}
	})
	ents, err := os.ReadDir(filepath.Join(root, "media"))
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 1 {
		t.Errorf("media/ holds %d files, want 1 (no temp file left): %v", len(ents), ents)
	}
}

func TestFolder_List(t *testing.T) {
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
