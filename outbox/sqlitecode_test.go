package outbox

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"testing"
)

// TestIsDiskFull_SQLite checks that SQLite's own "disk full" (SQLITE_FULL,
// here forced by a page limit) is told by its result code.
func TestIsDiskFull_SQLite(t *testing.T) {
	db, err := sql.Open("sqlite", "file:"+filepath.ToSlash(filepath.Join(t.TempDir(), "full.db")))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	if _, err := db.ExecContext(ctx, "CREATE TABLE t (b BLOB); PRAGMA max_page_count = 3"); err != nil {
		t.Fatal(err)
	}
	_, err = db.ExecContext(ctx, "INSERT INTO t VALUES (zeroblob(1000000))")
	if err == nil {
		t.Fatal("an insert past max_page_count succeeded")
	}
	if !isDiskFull(err) {
		t.Fatalf("isDiskFull(%v) = false, want true (code %d)", err, sqliteCode(err))
	}
	if !errors.Is(diskFull(err, 0), ErrDiskFull) {
		t.Errorf("diskFull(%v) does not wrap ErrDiskFull", err)
	}
	if isDiskFull(errors.New("database or disk is full")) {
		t.Error("isDiskFull matched a message that did not come from SQLite")
	}
}
