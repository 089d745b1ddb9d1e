package diskfull_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"

	"github.com/sparkfamily/spark/internal/diskfull"
	"github.com/sparkfamily/spark/internal/sqlitedb"
)

// TestIs: every OS's numbers for a full disk or quota, bare and wrapped as
// the file layer and the callers wrap them; on the other OS the same
// numbers mean something else (Linux's 39 is ENOTEMPTY, 112 EHOSTDOWN).
func TestIs(t *testing.T) {
	const unix, windows = "!windows", "windows"
	tests := []struct {
		name string
		err  error
		os   string // "": every OS
		want bool
	}{
		{"ENOSPC", syscall.ENOSPC, "", true},
		{"EDQUOT", syscall.EDQUOT, unix, true},
		{"ERROR_HANDLE_DISK_FULL", syscall.Errno(39), windows, true},
		{"ERROR_DISK_FULL", syscall.Errno(112), windows, true},
		{"ERROR_DISK_QUOTA_EXCEEDED", syscall.Errno(1295), windows, true},
		{"39 is not full on Unix", syscall.Errno(39), unix, false},
		{"112 is not full on Unix", syscall.Errno(112), unix, false},
		{"1295 is not full on Unix", syscall.Errno(1295), unix, false},
		{"ERROR_ACCESS_DENIED", syscall.Errno(5), windows, false},
		{"EIO", syscall.Errno(5), unix, false},
		{"nil", nil, "", false},
		{"permission", fs.ErrPermission, "", false},
		{"a message saying so", errors.New("database or disk is full"), "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.os == windows && runtime.GOOS != "windows" || tt.os == unix && runtime.GOOS == "windows" {
				t.Skipf("a %s number", tt.os)
			}
			errs := []error{tt.err}
			if tt.err != nil {
				errs = append(errs,
					&fs.PathError{Op: "write", Path: "original", Err: tt.err},
					fmt.Errorf("capture: %w", &fs.PathError{Op: "sync", Path: "x", Err: tt.err}),
					errors.Join(errors.New("first"), tt.err))
			}
			for _, err := range errs {
				if got := diskfull.Is(err); got != tt.want {
					t.Errorf("Is(%v) = %v, want %v", err, got, tt.want)
				}
			}
		})
	}
}

// TestIs_SQLite: SQLite's SQLITE_FULL, from a real database held to one
// page.
func TestIs_SQLite(t *testing.T) {
	db, err := sql.Open("sqlite", sqlitedb.DSN(filepath.Join(t.TempDir(), "full.db"), nil))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	_, err = db.ExecContext(ctx, "CREATE TABLE t (x); PRAGMA max_page_count = 2; INSERT INTO t VALUES (randomblob(100000))")
	if err == nil || !diskfull.Is(fmt.Errorf("write: %w", err)) {
		t.Fatalf("Is(%v) = false, want true (code %d)", err, sqlitedb.Code(err))
	}
	if _, err := db.ExecContext(ctx, "SELECT * FROM nowhere"); err == nil || diskfull.Is(err) {
		t.Errorf("Is(%v) = true for another SQLite error", err)
	}
}
