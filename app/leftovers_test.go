package app

import (
	"context"
	"database/sql"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sparkfamily/spark/internal/sqlitedb"
)

// TestSettings_Leftovers: the outbox's files that could not be removed yet
// (on Windows, a delivered photo's copy.jpg held open by antivirus or a
// backup tool) are in what Settings shows: a sentence for Dad without
// paths, and one line per folder behind Details. The refusal itself is
// the outbox's to test (outbox/removals_test.go, with a file layer that
// refuses deletes); here the outbox's own removals table is given a row,
// as a refused removal leaves it, while the app runs.
func TestSettings_Leftovers(t *testing.T) {
	dir := t.TempDir()
	a, _ := startApp(t, dir, nil)
	v, err := a.Settings.Get()
	if err != nil {
		t.Fatal(err)
	}
	if v.Leftovers.Count != 0 || v.Leftovers.Sent != 0 || v.Leftovers.Details == nil || len(v.Leftovers.Details) != 0 {
		t.Fatalf("leftovers of a new outbox = %+v, want none (and an empty list, not null)", v.Leftovers)
	}

	obDir := filepath.Join(dir, "outbox")
	held := filepath.Join(obDir, "files", "01JD0000000000000000000001")
	if err := os.MkdirAll(held, 0o700); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", sqlitedb.DSN(filepath.Join(obDir, "outbox.db"), url.Values{"_pragma": {"busy_timeout(10000)"}}))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for i, id := range []string{"01JD0000000000000000000001", "01JD0000000000000000000002", "01JD0000000000000000000003"} {
		if _, err := db.ExecContext(context.Background(), `INSERT INTO removals (path, entry_id, reason, since, attempts, last_error)
			VALUES (?, ?, 'delivered', ?, ?, 'remove copy.jpg: The process cannot access the file because it is being used by another process.')`,
			"files/"+id, id, time.Now().UTC().Format(time.RFC3339Nano), i+1); err != nil {
			t.Fatal(err)
		}
	}

	v, err = a.Settings.Get()
	if err != nil {
		t.Fatal(err)
	}
	l := v.Leftovers
	// Numbers: the sentence is the window's (words.ts leftoversWords).
	if l.Count != 3 || l.Sent != 3 || l.Discarded != 0 || l.Interrupted != 0 {
		t.Errorf("leftovers = %+v; want 3, all of photos already sent", l)
	}
	if len(l.Details) != 3 || !strings.Contains(l.Details[0], held) || !strings.Contains(l.Details[0], "being used by another process") {
		t.Errorf("details = %q, want one line per folder with its path and the last error", l.Details)
	}
}
