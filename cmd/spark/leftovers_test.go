package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/sparkfamily/spark/internal/sqlitedb"
	"github.com/sparkfamily/spark/outbox"
)

// unremovable makes, in the outbox folder obDir, a folder the OS refuses to
// remove, and returns its path relative to obDir (with "/"). On Windows it
// holds a file in it open, as antivirus or a backup tool does; elsewhere,
// where an open file does not stop a delete (and the test may run as
// root), its parent is a regular file, so the removal fails with "not a
// directory".
func unremovable(t *testing.T, obDir string) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		dir := filepath.Join(obDir, "held")
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, "copy.jpg")
		if err := os.WriteFile(p, []byte("jpeg"), 0o600); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(p) // Go opens without delete sharing
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return "held"
	}
	if err := os.WriteFile(filepath.Join(obDir, "held"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	return "held/copy"
}

// TestOutbox_Leftovers: spark outbox (text and --json) lists the outbox's
// folders that could not be removed yet, and says so in Dad's words. The
// folder is one the OS refuses to remove (unremovable), recorded in the
// outbox's removals table as a refused removal of a delivered photo leaves
// it; spark outbox's own open tries it again and fails again.
func TestOutbox_Leftovers(t *testing.T) {
	data := t.TempDir()
	if l := outboxJSON(t, data); l.Counts != (outbox.Counts{}) {
		t.Fatalf("a new outbox: %+v", l.Counts)
	}
	code, out, _ := spark(t, nil, "--data", data, "outbox", "--json")
	if code != 0 || !strings.Contains(out, `"leftovers": []`) {
		t.Errorf("outbox --json with nothing left over = %d, want \"leftovers\": []:\n%s", code, out)
	}

	obDir := filepath.Join(data, "outbox")
	rel := unremovable(t, obDir)
	db, err := sql.Open("sqlite", sqlitedb.DSN(filepath.Join(obDir, "outbox.db"), url.Values{"_pragma": {"busy_timeout(10000)"}}))
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.ExecContext(context.Background(), `INSERT INTO removals (path, entry_id, reason, since, attempts, last_error)
		VALUES (?, '01JD0000000000000000000001', 'delivered', ?, 1, 'first try')`, rel, time.Now().UTC().Format(time.RFC3339Nano))
	db.Close()
	if err != nil {
		t.Fatal(err)
	}

	code, out, errOut := spark(t, nil, "--data", data, "outbox", "--json")
	if code != 0 {
		t.Fatalf("outbox --json = %d: %s", code, errOut)
	}
	var l struct {
		Leftovers []outbox.Leftover `json:"leftovers"`
	}
	if err := json.Unmarshal([]byte(out), &l); err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(obDir, filepath.FromSlash(rel))
	if len(l.Leftovers) != 1 || l.Leftovers[0].Path != want || l.Leftovers[0].Reason != outbox.ReasonDelivered ||
		l.Leftovers[0].Attempts < 2 || l.Leftovers[0].LastError == "first try" {
		t.Errorf("leftovers = %+v; want %s, tried again at the open", l.Leftovers, want)
	}

	code, out, _ = spark(t, nil, "--data", data, "outbox")
	if code != 0 || !strings.Contains(out, "1 photo already sent could not be removed from this computer yet (a program may have it open). Spark tries again on its own.") ||
		!strings.Contains(out, "  "+want+" (already sent;") {
		t.Errorf("outbox = %d:\n%s", code, out)
	}
}
