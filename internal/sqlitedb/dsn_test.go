package sqlitedb_test

import (
	"context"
	"database/sql"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	_ "modernc.org/sqlite"

	"github.com/sparkfamily/spark/internal/sqlitedb"
	"github.com/sparkfamily/spark/internal/sqlitedb/sqlitedbtest"
)

func TestDSN(t *testing.T) {
	q := url.Values{"_pragma": {"busy_timeout(10000)"}}
	tests := []struct {
		name, path, want string
		params           url.Values
		os               string // only on this GOOS, "" for every one
	}{
		{name: "Plain", path: "/data/outbox.db", want: "file:///data/outbox.db", os: "!windows"},
		{name: "Params", path: "/data/o.db", params: q, want: "file:///data/o.db?_pragma=busy_timeout%2810000%29", os: "!windows"},
		{name: "Hash", path: "/a#b/o.db", want: "file:///a%23b/o.db", os: "!windows"},
		{name: "Percent", path: "/a%41/o.db", want: "file:///a%2541/o.db", os: "!windows"},
		{name: "Question", path: "/a?b=c/o.db", params: q, want: "file:///a%3Fb%3Dc/o.db?_pragma=busy_timeout%2810000%29", os: "!windows"},
		{name: "SpaceAndUTF8", path: "/Jörg Ü/o.db", want: "file:///J%C3%B6rg%20%C3%9C/o.db", os: "!windows"},
		{name: "Relative", path: "data/o.db", want: "file:data/o.db"},
		{name: "Drive", path: `C:\Users\Dad\AppData\Local\Spark\outbox\outbox.db`, want: "file:///C:/Users/Dad/AppData/Local/Spark/outbox/outbox.db", os: "windows"},
		{name: "DriveHash", path: `C:\Users\#1 Dad\o.db`, want: "file:///C:/Users/%231%20Dad/o.db", os: "windows"},
		{name: "UNC", path: `\\server\share\Spark\o.db`, want: "file:////server/share/Spark/o.db", os: "windows"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.os == "windows" && runtime.GOOS != "windows" || tt.os == "!windows" && runtime.GOOS == "windows" {
				t.Skipf("a %s path", strings.TrimPrefix(tt.os, "!"))
			}
			if got := sqlitedb.DSN(tt.path, tt.params); got != tt.want {
				t.Errorf("DSN(%q) = %q; want %q", tt.path, got, tt.want)
			}
		})
	}
}

// TestDSN_Opens opens, writes and reopens a database in every odd folder,
// and checks that the file is exactly where the path says, with no stray
// file at a path cut short.
func TestDSN_Opens(t *testing.T) {
	for _, d := range sqlitedbtest.OddDirs(t) {
		t.Run(d.Label, func(t *testing.T) {
			base := t.TempDir()
			dir := filepath.Join(base, d.Rel)
			if err := os.MkdirAll(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "test.db")
			for i := range 2 {
				db, err := sql.Open("sqlite", sqlitedb.DSN(path, url.Values{"_pragma": {"journal_mode(WAL)", "busy_timeout(1000)"}, "_txlock": {"immediate"}}))
				if err != nil {
					t.Fatal(err)
				}
				ctx := context.Background()
				if _, err := db.ExecContext(ctx, "CREATE TABLE IF NOT EXISTS t (x); INSERT INTO t VALUES (1)"); err != nil {
					t.Fatalf("open %d: %v", i, err)
				}
				var n int
				var mode string
				if err := db.QueryRowContext(ctx, "SELECT count(*) FROM t").Scan(&n); err != nil || n != i+1 {
					t.Errorf("open %d: %d rows (%v), want %d", i, n, err, i+1)
				}
				if err := db.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
					t.Errorf("journal_mode = %q (%v): the parameters were lost", mode, err)
				}
				db.Close()
			}
			if _, err := os.Stat(path); err != nil {
				t.Errorf("the database is not at its path: %v", err)
			}
			sqlitedbtest.CheckNoStray(t, base, d.Rel)
		})
	}
}
