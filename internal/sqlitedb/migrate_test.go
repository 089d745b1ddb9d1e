package sqlitedb

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"testing"
	"testing/fstest"

	_ "modernc.org/sqlite"
)

// TestMigrate: each step runs once, in order, with its version; a failed
// step leaves the version before it; a version no step leads on from is a
// *VersionError and changes nothing.
func TestMigrate(t *testing.T) {
	ctx := context.Background()
	db, err := sql.Open("sqlite", DSN(filepath.Join(t.TempDir(), "m.db"), nil))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	version := func() int {
		var v int
		if err := db.QueryRow("PRAGMA user_version").Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	steps, err := MigrationFiles(fstest.MapFS{
		"m/001_a.sql": {Data: []byte("CREATE TABLE a (x)")},
		"m/002_b.sql": {Data: []byte("INSERT INTO a VALUES (2)")},
	}, "m")
	if err != nil {
		t.Fatal(err)
	}
	if from, err := Migrate(ctx, db, steps); err != nil || from != 0 || version() != 2 {
		t.Fatalf("Migrate = %d, %v; version %d", from, err, version())
	}
	if from, err := Migrate(ctx, db, steps); err != nil || from != 2 {
		t.Fatalf("Migrate again = %d, %v", from, err)
	}
	bad := append(steps, Migration{Version: 3, SQL: "INSERT INTO a VALUES (3); INSERT INTO nowhere VALUES (1)"})
	if _, err := Migrate(ctx, db, bad); err == nil || version() != 2 {
		t.Fatalf("a failed step = %v, version %d; want an error and version 2", err, version())
	}
	var n int
	db.QueryRow("SELECT count(*) FROM a").Scan(&n)
	if n != 1 {
		t.Errorf("%d rows after the failed step; want 1 (its transaction rolled back)", n)
	}
	var ve *VersionError
	if _, err := Migrate(ctx, db, steps[:1]); !errors.As(err, &ve) || ve.Have != 2 || ve.Want != 1 {
		t.Errorf("a newer database = %v; want a VersionError", err)
	}
	if _, err := Migrate(ctx, db, []Migration{{Version: 5, SQL: "SELECT 1"}}); !errors.As(err, &ve) || version() != 2 {
		t.Errorf("a database older than the first step = %v; want a VersionError", err)
	}
	if _, err := MigrationFiles(fstest.MapFS{"m/002_b.sql": {Data: []byte("x")}}, "m"); err == nil {
		t.Errorf("a gap in the numbers: no error")
	}
}
