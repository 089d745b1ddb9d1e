package outbox

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sparkfamily/spark/engine/enginetest"
	"github.com/sparkfamily/spark/internal/syncbuf"
)

// logBuf is a log that tests read back.
type logBuf struct{ syncbuf.Buffer }

func (l *logBuf) count(s string) int { return strings.Count(l.String(), s) }

func (l *logBuf) logger() *slog.Logger { return slog.New(slog.NewTextHandler(l, nil)) }

// errHeld is what the refusing file layer answers, in the words of
// Windows' ERROR_SHARING_VIOLATION.
var errHeld = errors.New("The process cannot access the file because it is being used by another process.")

// refuseDeletes makes removeAll fail, as Windows does while another
// program holds a file open, for the folders whose path contains one of
// the returned set's keys, until the test ends.
func refuseDeletes(t *testing.T) (refuse func(part string), allow func()) {
	var mu sync.Mutex
	parts := map[string]bool{}
	t.Cleanup(func() { removeAll = os.RemoveAll })
	removeAll = func(p string) error {
		mu.Lock()
		defer mu.Unlock()
		for part := range parts {
			if strings.Contains(filepath.ToSlash(p), part) {
				return &fs.PathError{Op: "unlinkat", Path: filepath.Join(p, "copy.jpg"), Err: errHeld}
			}
		}
		return os.RemoveAll(p)
	}
	return func(part string) {
			mu.Lock()
			parts[part] = true
			mu.Unlock()
		}, func() {
			mu.Lock()
			clear(parts)
			mu.Unlock()
		}
}

// TestRemovals_Refused: with a file layer that refuses to delete, the
// outbox still delivers, reopens (twice), lists what it holds, discards,
// and reports each folder once in the log; once deletes work again, the
// next Open removes everything and says so.
func TestRemovals_Refused(t *testing.T) {
	ctx := context.Background()
	refuse, allow := refuseDeletes(t)
	refuse("/files/")
	refuse("/staging/")
	var log logBuf
	opts := testOptions()
	opts.Logger = log.logger()
	dir := t.TempDir()
	eng := enginetest.Start(t)
	o, err := Open(ctx, dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	src := t.TempDir()
	var paths []string
	for i := range 4 {
		paths = append(paths, writePhoto(t, src, fmt.Sprintf("p%d.jpg", i), uint64(300+i)))
	}
	mustCapture(t, o, paths[:3]...)
	o.SetTarget(Target{URL: eng.URL, Token: eng.Token})
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- o.Run(runCtx) }()
	if c := settle(t, o, 20*time.Second); c != (Counts{Done: 3}) {
		t.Fatalf("counts = %+v, want 3 done", c)
	}
	stop()
	<-done
	waitFor(t, 5*time.Second, "the three leftovers", func() bool { return len(leftovers(t, o)) == 3 })
	for _, l := range leftovers(t, o) {
		if l.Reason != ReasonDelivered || l.Attempts != 1 || !strings.Contains(l.LastError, "copy.jpg") || !strings.HasPrefix(l.Path, dir) {
			t.Errorf("leftover %+v; want a delivered entry's folder, tried once", l)
		}
		if _, err := os.Stat(l.Path); err != nil {
			t.Errorf("leftover %s: %v", l.Path, err)
		}
	}
	// A stray staging folder too, as an interrupted capture leaves.
	if err := os.MkdirAll(filepath.Join(dir, "staging", "01HALFWAY000000000000000000"), 0o700); err != nil {
		t.Fatal(err)
	}
	o.Close()

	// Reopened, twice, with the files still held: it opens, the folders
	// are tried again, and nothing is logged again.
	for i := range 2 {
		o, err = Open(ctx, dir, opts)
		if err != nil {
			t.Fatalf("reopen %d with files that cannot be deleted: %v", i, err)
		}
		if c, err := o.Counts(ctx); err != nil || c != (Counts{Done: 3}) {
			t.Errorf("reopen %d: counts = %+v, %v", i, c, err)
		}
		if i == 0 {
			o.Close()
		}
	}
	ls := leftovers(t, o)
	if len(ls) != 4 || ls[0].Attempts != 3 || ls[3].Reason != ReasonStaging {
		t.Errorf("leftovers after two reopens = %+v; want the three tried three times and the staging folder", ls)
	}
	if n := log.count("cannot remove files yet"); n != 4 {
		t.Errorf("%d warnings about files that cannot be removed; want one for each of the 4 folders:\n%s", n, log.String())
	}

	// Discard works, its files remembered, with and without export.
	e := mustCapture(t, o, paths[3])[0].Entry
	exported, err := o.Discard(ctx, e.ID, filepath.Join(t.TempDir(), "kept"))
	if err != nil {
		t.Fatalf("Discard with files that cannot be deleted: %v", err)
	}
	if b, err := os.ReadFile(exported); err != nil || len(b) == 0 {
		t.Errorf("exported original: %d bytes, %v", len(b), err)
	}
	if _, err := o.Entry(ctx, e.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("discarded entry still listed: %v", err)
	}
	if ls := leftovers(t, o); len(ls) != 5 || ls[4].Reason != ReasonDiscarded || ls[4].EntryID != e.ID {
		t.Errorf("leftovers after discard = %+v", ls)
	}
	o.Close()

	// Deletes work again: the next Open removes every folder.
	allow()
	log.Reset()
	o = openTest(t, dir, opts)
	if ls := leftovers(t, o); len(ls) != 0 {
		t.Errorf("leftovers = %+v; want none", ls)
	}
	if got := listDir(t, filepath.Join(dir, "files")); len(got) != 0 {
		t.Errorf("files/ holds %v", got)
	}
	if got := listDir(t, filepath.Join(dir, "staging")); len(got) != 0 {
		t.Errorf("staging/ holds %v", got)
	}
	if n := log.count("removed files left earlier"); n != 5 {
		t.Errorf("%d notes of removed leftovers; want 5:\n%s", n, log.String())
	}
}

// TestRemovals_AfterDelivery: a folder that could not be removed is
// retried after a later delivery, not only at Open.
func TestRemovals_AfterDelivery(t *testing.T) {
	refuse, allow := refuseDeletes(t)
	eng := enginetest.Start(t)
	now := time.Now()
	var mu sync.Mutex
	opts := testOptions()
	opts.Now = func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	o := openTest(t, "", opts)
	o.SetTarget(Target{URL: eng.URL, Token: eng.Token})
	startDrain(t, o)
	src := t.TempDir()
	first := mustCapture(t, o, writePhoto(t, src, "a.jpg", 401))[0].Entry
	refuse(first.ID)
	if c := settle(t, o, 10*time.Second); c != (Counts{Done: 1}) {
		t.Fatalf("counts = %+v", c)
	}
	waitFor(t, 5*time.Second, "the leftover", func() bool { return len(leftovers(t, o)) == 1 })
	allow()
	mu.Lock()
	now = now.Add(2 * retryEvery)
	mu.Unlock()
	mustCapture(t, o, writePhoto(t, src, "b.jpg", 402))
	waitFor(t, 10*time.Second, "the leftover to go after the next delivery", func() bool { return len(leftovers(t, o)) == 0 })
	if _, err := os.Stat(o.entryDir(first.ID)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("first entry's folder: %v", err)
	}
}

// TestRemovals_FileHeldOpen holds a delivered entry's small copy open, as
// antivirus or Explorer's thumbnailer does on Windows: the outbox still
// drains, reopens and discards, and removes the folder once the file is
// let go. POSIX systems delete an open file, so there the test shows only
// that nothing breaks.
func TestRemovals_FileHeldOpen(t *testing.T) {
	ctx := context.Background()
	eng := enginetest.Start(t)
	dir := t.TempDir()
	o, err := Open(ctx, dir, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	src := t.TempDir()
	ents := mustCapture(t, o, writePhoto(t, src, "a.jpg", 501), writePhoto(t, src, "b.jpg", 502))
	held, err := os.Open(filepath.Join(o.entryDir(ents[0].Entry.ID), copyName))
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	heldDiscard, err := os.Open(filepath.Join(o.entryDir(ents[1].Entry.ID), originalName))
	if err != nil {
		t.Fatal(err)
	}
	defer heldDiscard.Close()
	if _, err := o.Discard(ctx, ents[1].Entry.ID, ""); err != nil {
		t.Fatalf("Discard with its original held open: %v", err)
	}
	o.SetTarget(Target{URL: eng.URL, Token: eng.Token})
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- o.Run(runCtx) }()
	if c := settle(t, o, 10*time.Second); c != (Counts{Done: 1}) {
		t.Fatalf("counts = %+v", c)
	}
	stop()
	<-done
	want := 0
	if runtime.GOOS == "windows" {
		want = 2
	}
	waitFor(t, 5*time.Second, fmt.Sprintf("%d leftovers", want), func() bool { return len(leftovers(t, o)) == want })
	o.Close()
	o, err = Open(ctx, dir, testOptions())
	if err != nil {
		t.Fatalf("reopen with a file held open: %v", err)
	}
	if got := len(leftovers(t, o)); got != want {
		t.Errorf("%d leftovers after reopening; want %d", got, want)
	}
	o.Close()
	held.Close()
	heldDiscard.Close()
	o = openTest(t, dir, testOptions())
	if ls := leftovers(t, o); len(ls) != 0 {
		t.Errorf("leftovers once the files are let go: %+v", ls)
	}
	if got := listDir(t, filepath.Join(dir, "files")); len(got) != 0 {
		t.Errorf("files/ holds %v", got)
	}
}

func leftovers(t *testing.T, o *Outbox) []Leftover {
	t.Helper()
	ls, err := o.Leftovers(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return ls
}

// TestOpen_MigratesV0 opens testdata/outbox-v0, an outbox written by the
// Spark before the schema had a version (one delivered, one pending and one
// parked entry), brings it to SchemaVersion, and goes on using it.
func TestOpen_MigratesV0(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "outbox")
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("testdata", "outbox-v0"))); err != nil {
		t.Fatal(err)
	}
	if v := userVersion(t, filepath.Join(dir, "outbox.db")); v != 0 {
		t.Fatalf("testdata user_version = %d; want 0", v)
	}
	o, err := Open(ctx, dir, testOptions())
	if err != nil {
		t.Fatalf("Open(v0 outbox): %v", err)
	}
	ents := entries(t, o)
	var states []string
	for _, e := range ents {
		states = append(states, string(e.State))
	}
	if got := strings.Join(states, " "); got != "done pending parked" {
		t.Errorf("states = %q; want the delivered, pending and parked entries", got)
	}
	if ents[2].LastCode != "too_large" || ents[0].DeliveredAt == nil || ents[1].SHA256 == "" {
		t.Errorf("entries lost fields: %+v", ents)
	}
	if _, err := o.SmallCopyPath(ents[1].ID); err != nil {
		t.Errorf("pending entry's small copy: %v", err)
	}
	if ls := leftovers(t, o); len(ls) != 0 {
		t.Errorf("leftovers = %+v", ls)
	}
	// The delivered original is still known: importing it again is a duplicate.
	if c, err := o.Counts(ctx); err != nil || c != (Counts{Pending: 1, Parked: 1, Done: 1}) {
		t.Errorf("counts = %+v, %v", c, err)
	}
	if _, err := o.Discard(ctx, ents[2].ID, ""); err != nil {
		t.Errorf("Discard in the migrated outbox: %v", err)
	}
	o.Close()
	if v := userVersion(t, filepath.Join(dir, "outbox.db")); v != SchemaVersion {
		t.Errorf("user_version after Open = %d; want %d", v, SchemaVersion)
	}
	// And it opens again, already migrated.
	o = openTest(t, dir, testOptions())
	if c, err := o.Counts(ctx); err != nil || c != (Counts{Pending: 1, Done: 1}) {
		t.Errorf("counts after reopen = %+v, %v", c, err)
	}
}

// TestOpen_NewerSchemaRefused: an outbox written by a newer Spark is not
// opened (nor changed) by this one.
func TestOpen_NewerSchemaRefused(t *testing.T) {
	dir := t.TempDir()
	o := openTest(t, dir, testOptions())
	o.Close()
	db, err := sql.Open("sqlite", filepath.Join(dir, "outbox.db"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(fmt.Sprintf("PRAGMA user_version = %d", SchemaVersion+1)); err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, err = Open(context.Background(), dir, testOptions())
	if err == nil || !strings.Contains(err.Error(), "newer Spark") {
		t.Errorf("Open(newer outbox) = %v; want an error saying a newer Spark wrote it", err)
	}
}

func userVersion(t *testing.T, path string) int {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var v int
	if err := db.QueryRow("PRAGMA user_version").Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}
