package sqlitedb

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sparkfamily/spark/internal/dirlock"
)

// TestLockFolder: one process at a time, whichever Spark comes first. A
// second taker of the new kind is told who holds the folder; an older
// Spark (the legacy DIR/lock alone) holding it keeps this one out, and
// this one holding it keeps an older Spark out.
func TestLockFolder(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	l, err := LockFolder(ctx, dir, "x.lock", "the test")
	if err != nil {
		t.Fatal(err)
	}
	_, err = LockFolder(ctx, dir, "x.lock", "a second")
	var held *dirlock.HeldError
	if !errors.As(err, &held) || held.Holder == nil || !strings.Contains(err.Error(), "pid "+strconv.Itoa(os.Getpid())) {
		t.Fatalf("second LockFolder = %v; want a HeldError naming this process", err)
	}
	// An older Spark, started now, takes DIR/lock alone: it fails.
	if db, err := Lock(ctx, filepath.Join(dir, LegacyLockFile)); !errors.Is(err, ErrHeld) {
		if db != nil {
			db.Close()
		}
		t.Fatalf("the legacy lock beside a held folder = %v; want ErrHeld", err)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	// An older Spark holds the folder: this one keeps out.
	old, err := Lock(ctx, filepath.Join(dir, LegacyLockFile))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := LockFolder(ctx, dir, "x.lock", "the test"); !errors.Is(err, ErrOlderSpark) {
		t.Fatalf("LockFolder beside an older Spark = %v; want ErrOlderSpark", err)
	}
	old.Close()
	l, err = LockFolder(ctx, dir, "x.lock", "the test")
	if err != nil {
		t.Fatalf("LockFolder once the older Spark is gone: %v", err)
	}
	l.Release()
}
