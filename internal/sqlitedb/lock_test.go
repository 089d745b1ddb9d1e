package sqlitedb_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/sparkfamily/spark/internal/sqlitedb"
	"github.com/sparkfamily/spark/internal/sqlitedb/sqlitedbtest"
)

// TestLock_OddDirs takes the lock in every odd folder: a second Lock fails
// with ErrHeld while the first is open and succeeds once it is closed, and
// the lock file is exactly at its path. A lock DSN built by hand
// ("file:"+path) gave a "#" folder a lock file cut before the "#" (so two
// outboxes "a#1" and "a#2" shared one lock), and "%41" an error.
func TestLock_OddDirs(t *testing.T) {
	ctx := context.Background()
	for _, d := range sqlitedbtest.OddDirs(t) {
		t.Run(d.Label, func(t *testing.T) {
			base := t.TempDir()
			dir := filepath.Join(base, d.Rel)
			if err := os.MkdirAll(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "lock")
			db, err := sqlitedb.Lock(ctx, path)
			if err != nil {
				t.Fatalf("Lock: %v", err)
			}
			if _, err := sqlitedb.Lock(ctx, path); !errors.Is(err, sqlitedb.ErrHeld) {
				t.Errorf("a second Lock = %v, want ErrHeld", err)
			}
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			db, err = sqlitedb.Lock(ctx, path)
			if err != nil {
				t.Fatalf("Lock after Close: %v", err)
			}
			db.Close()
			if _, err := os.Stat(path); err != nil {
				t.Errorf("the lock is not at its path: %v", err)
			}
			sqlitedbtest.CheckNoStray(t, base, d.Rel)
		})
	}
}

func TestCode(t *testing.T) {
	if c := sqlitedb.Code(errors.New("not SQLite")); c != 0 {
		t.Errorf("Code(a plain error) = %d, want 0", c)
	}
	if c := sqlitedb.Code(nil); c != 0 {
		t.Errorf("Code(nil) = %d, want 0", c)
	}
}
