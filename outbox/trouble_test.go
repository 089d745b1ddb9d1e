package outbox

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/sparkfamily/spark/internal/sqlitedb"
)

// TestClassify_TroubleCodes checks that a failure which is not the
// engine's answer waits under a code naming what failed, rather than
// being called network trouble.
func TestClassify_TroubleCodes(t *testing.T) {
	sqlErr := sqliteError(t, "", "UPDATE nowhere SET x = 1")
	var syntaxErr error = &json.SyntaxError{Offset: 3}
	for _, tt := range []struct {
		name string
		err  error
		code string
	}{
		{"Network", fmt.Errorf("create moment X: cannot reach the engine: %w", &url.Error{Op: "Post", URL: "http://127.0.0.1:1", Err: syscall.ECONNREFUSED}), CodeNetwork},
		{"Database", fmt.Errorf("record step copy: %w", sqlErr), CodeOutboxDatabase},
		{"File", fmt.Errorf("open the copy of a.jpg: %w", &fs.PathError{Op: "open", Path: "/outbox/files/x/copy.jpg", Err: syscall.EACCES}), CodeOutboxFile},
		{"BadAnswer", fmt.Errorf("create moment X: reading the engine's answer (201): %w", syntaxErr), CodeBadAnswer},
		{"Other", errors.New("something else"), CodeFailed},
	} {
		t.Run(tt.name, func(t *testing.T) {
			v := Classify(tt.err)
			if v.Park || v.Code != tt.code || v.Message != tt.err.Error() {
				t.Errorf("Classify(%v) = %+v, want waiting with code %q", tt.err, v, tt.code)
			}
		})
	}
}

// TestIsDiskFull_SQLite checks that SQLite's own "disk full" (SQLITE_FULL,
// here forced by a page limit) is told by its result code.
func TestIsDiskFull_SQLite(t *testing.T) {
	err := sqliteError(t, "CREATE TABLE t (b BLOB); PRAGMA max_page_count = 3", "INSERT INTO t VALUES (zeroblob(1000000))")
	if !isDiskFull(err) {
		t.Fatalf("isDiskFull(%v) = false, want true (code %d)", err, sqlitedb.Code(err))
	}
	if !errors.Is(diskFull(err, 0), ErrDiskFull) {
		t.Errorf("diskFull(%v) does not wrap ErrDiskFull", err)
	}
	if isDiskFull(errors.New("database or disk is full")) {
		t.Error("isDiskFull matched a message that did not come from SQLite")
	}
}

// sqliteError runs setup, then stmt, in a scratch SQLite database and
// returns stmt's error, which must not be nil.
func sqliteError(tb testing.TB, setup, stmt string) error {
	tb.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.ToSlash(filepath.Join(tb.TempDir(), "scratch.db")))
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	if setup != "" {
		if _, err := db.ExecContext(ctx, setup); err != nil {
			tb.Fatal(err)
		}
	}
	_, err = db.ExecContext(ctx, stmt)
	if err == nil {
		tb.Fatalf("%s succeeded; want an error", stmt)
	}
	return err
}
