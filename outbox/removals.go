package outbox

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sync"
	"time"

	"github.com/sparkfamily/spark/internal/atomicfile"
)

// Deleting never blocks the outbox. On Windows a file cannot be deleted
// while another program holds it open without delete sharing (antivirus,
// Explorer's thumbnailer, a backup tool), so the folder of a delivered or
// discarded entry may outlive it. Such a folder is remembered in the
// removals table, reported once in the log, retried at each Open and after
// deliveries, and listed by Leftovers; it never makes Open, the drain or
// Discard fail.

// Why a folder is to be removed, in Leftover.Reason.
const (
	ReasonDelivered = "delivered" // the engine holds the entry's files
	ReasonDiscarded = "discarded" // the user discarded the entry
	ReasonStray     = "stray"     // a folder without an entry, left by a crash
	ReasonStaging   = "staging"   // an interrupted capture's half-written files
)

// removeAll removes a folder and all it holds. Tests swap it for a file
// layer that refuses deletes.
var removeAll = os.RemoveAll

// retryEvery is the least time between two retries of the remembered
// removals after deliveries.
const retryEvery = time.Minute

// removals serialises the retries of one outbox.
type removals struct {
	mu        sync.Mutex
	lastRetry time.Time
}

// Leftover is a folder of the outbox that Spark could not remove yet.
type Leftover struct {
	Path      string    `json:"path"`               // absolute
	EntryID   string    `json:"entry_id,omitempty"` // the entry it belonged to, if known
	Reason    string    `json:"reason"`             // delivered, discarded, stray or staging
	Since     time.Time `json:"since"`              // when the removal was first due
	Attempts  int       `json:"attempts"`
	LastError string    `json:"last_error"`
}

// Leftovers lists the folders the outbox could not remove yet, oldest
// first, for Settings' details: they take disk space and are retried at
// each start and after deliveries. The list is empty in the usual case.
func (o *Outbox) Leftovers(ctx context.Context) ([]Leftover, error) {
	rows, err := o.db.QueryContext(ctx, `SELECT path, entry_id, reason, since, attempts, last_error
		FROM removals ORDER BY since, path`)
	if err != nil {
		return nil, fmt.Errorf("list leftover outbox files: %w", err)
	}
	defer rows.Close()
	var out []Leftover
	for rows.Next() {
		var l Leftover
		var since string
		if err := rows.Scan(&l.Path, &l.EntryID, &l.Reason, &since, &l.Attempts, &l.LastError); err != nil {
			return nil, fmt.Errorf("list leftover outbox files: %w", err)
		}
		l.Path = filepath.Join(o.dir, filepath.FromSlash(l.Path))
		l.Since, _ = time.Parse(time.RFC3339Nano, since)
		out = append(out, l)
	}
	return out, rows.Err()
}

// removeFiles removes the folder rel (relative to the outbox, with "/")
// now, or remembers it to try again later. It reports a folder in the log
// the first time it cannot be removed, and again once it is.
func (o *Outbox) removeFiles(ctx context.Context, rel, entryID, reason string) {
	// The bookkeeping must happen even when the drain is being stopped.
	ctx = context.WithoutCancel(ctx)
	abs := filepath.Join(o.dir, filepath.FromSlash(rel))
	err := removeAll(abs)
	if err == nil || errors.Is(err, fs.ErrNotExist) {
		var attempts int
		dbErr := o.db.QueryRowContext(ctx, "DELETE FROM removals WHERE path = ? RETURNING attempts", rel).Scan(&attempts)
		if dbErr == nil && attempts > 0 {
			o.log.Info("outbox: removed files left earlier", "path", abs, "reason", reason, "tries", attempts+1)
		}
		return
	}
	var attempts int
	dbErr := o.db.QueryRowContext(ctx, `INSERT INTO removals (path, entry_id, reason, since, attempts, last_error)
		VALUES (?, ?, ?, ?, 1, ?)
		ON CONFLICT (path) DO UPDATE SET attempts = attempts + 1, last_error = excluded.last_error
		RETURNING attempts`, rel, entryID, reason, formatTime(o.opts.Now()), err.Error()).Scan(&attempts)
	switch {
	case dbErr != nil:
		// Not even remembered: the folder is found again at the next
		// Open, as a stray or a delivered entry's.
		o.log.Warn("outbox: cannot remove files; will try again at the next start", "path", abs, "reason", reason, "err", err, "db_err", dbErr)
	case attempts == 1:
		o.log.Warn("outbox: cannot remove files yet (another program may hold one open); will try again at each start and after deliveries",
			"path", abs, "reason", reason, "err", err)
	default:
		o.log.Debug("outbox: still cannot remove files", "path", abs, "tries", attempts, "err", err)
	}
}

// forget deletes r's row and, for a photo, records its folder for
// removal, and the rows of along not sent yet, in one transaction. A
// write already sent stays: the engine has it.
func (o *Outbox) forget(ctx context.Context, r *row, along ...Write) error {
	tx, err := o.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	q := "DELETE FROM queue WHERE id = ?"
	if r.Kind != KindPhoto {
		q += " AND state != 'done'"
	}
	res, err := tx.ExecContext(ctx, q, r.ID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return errors.New("it is already sent")
	}
	for _, w := range along {
		if _, err := tx.ExecContext(ctx, "DELETE FROM queue WHERE id = ? AND kind != 'photo' AND state != 'done'", w.ID); err != nil {
			return err
		}
	}
	if r.Kind == KindPhoto {
		if _, err := tx.ExecContext(ctx, `INSERT INTO removals (path, entry_id, reason, since) VALUES (?, ?, ?, ?)
			ON CONFLICT (path) DO NOTHING`, "files/"+r.ID, r.ID, ReasonDiscarded, formatTime(o.opts.Now())); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// removeDelivered removes a delivered entry's files (unless KeepFiles),
// then retries the remembered removals if the last retry is a while ago.
func (o *Outbox) removeDelivered(ctx context.Context, id string) {
	if !o.opts.KeepFiles {
		o.removeFiles(ctx, "files/"+id, id, ReasonDelivered)
	}
	o.rm.mu.Lock()
	due := o.opts.Now().Sub(o.rm.lastRetry) >= retryEvery
	o.rm.mu.Unlock()
	if due {
		o.retryRemovals(ctx, nil)
	}
}

// retryRemovals tries every remembered removal again, but those in tried.
func (o *Outbox) retryRemovals(ctx context.Context, tried map[string]bool) {
	o.rm.mu.Lock()
	defer o.rm.mu.Unlock()
	o.rm.lastRetry = o.opts.Now()
	rows, err := o.db.QueryContext(ctx, "SELECT path, entry_id, reason FROM removals ORDER BY since")
	if err != nil {
		o.log.Warn("outbox: cannot list leftover files", "err", err)
		return
	}
	type rm struct{ path, id, reason string }
	var todo []rm
	for rows.Next() {
		var r rm
		if err := rows.Scan(&r.path, &r.id, &r.reason); err == nil && !tried[r.path] {
			todo = append(todo, r)
		}
	}
	rows.Close()
	for _, r := range todo {
		o.removeFiles(ctx, r.path, r.id, r.reason)
	}
}

// cleanup runs at Open: it removes staging leftovers, the folders of
// delivered entries (unless KeepFiles) and folders without an entry, and
// retries the remembered removals. A folder it cannot remove is remembered
// and never stops the outbox from opening.
func (o *Outbox) cleanup(ctx context.Context) error {
	ents, err := os.ReadDir(filepath.Join(o.dir, "staging"))
	if err != nil {
		return fmt.Errorf("clean outbox staging: %w", err)
	}
	tried := map[string]bool{}
	for _, e := range ents {
		rel := path.Join("staging", e.Name())
		o.removeFiles(ctx, rel, "", ReasonStaging)
		tried[rel] = true
	}
	state := map[string]State{}
	rows, err := o.db.QueryContext(ctx, "SELECT id, state FROM queue WHERE kind = 'photo'")
	if err != nil {
		return fmt.Errorf("clean outbox files: %w", err)
	}
	for rows.Next() {
		var id string
		var st State
		if err := rows.Scan(&id, &st); err != nil {
			rows.Close()
			return fmt.Errorf("clean outbox files: %w", err)
		}
		state[id] = st
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("clean outbox files: %w", err)
	}
	files := filepath.Join(o.dir, "files")
	ents, err = os.ReadDir(files)
	if err != nil {
		return fmt.Errorf("clean outbox files: %w", err)
	}
	for _, e := range ents {
		rel := path.Join("files", e.Name())
		st, ok := state[e.Name()]
		switch {
		case ok && (st != Done || o.opts.KeepFiles):
			continue
		case ok:
			o.removeFiles(ctx, rel, e.Name(), ReasonDelivered)
		default:
			o.log.Info("outbox: removing stray files", "dir", e.Name())
			o.removeFiles(ctx, rel, e.Name(), ReasonStray)
		}
		tried[rel] = true
	}
	// What is remembered but was not met above is gone already (removed
	// by someone else): retrying forgets it.
	o.retryRemovals(ctx, tried)
	if err := atomicfile.SyncDir(files); err != nil {
		o.log.Warn("outbox: cannot sync the files folder", "err", err)
	}
	return nil
}

// LeftoverCounts counts the folders not removed yet by why they are to
// go: numbers, which the window (frontend/src/words.ts leftoversWords)
// and the spark command (cmd/spark/words.go) word for Dad.
type LeftoverCounts struct {
	Sent        int `json:"sent"`        // of photos already sent
	Discarded   int `json:"discarded"`   // of photos discarded
	Interrupted int `json:"interrupted"` // left by an import that was interrupted
}

// CountLeftovers counts ls by why each is to go.
func CountLeftovers(ls []Leftover) LeftoverCounts {
	var c LeftoverCounts
	for _, l := range ls {
		switch l.Reason {
		case ReasonDelivered:
			c.Sent++
		case ReasonDiscarded:
			c.Discarded++
		default:
			c.Interrupted++
		}
	}
	return c
}

// LeftoverDetail is one line about l for Settings' details: where it is,
// why it is to go, since when, and what the last try said.
func LeftoverDetail(l Leftover) string {
	why := map[string]string{
		ReasonDelivered: "already sent",
		ReasonDiscarded: "discarded",
		ReasonStray:     "left by an interruption",
		ReasonStaging:   "an interrupted import",
	}[l.Reason]
	if why == "" {
		why = l.Reason
	}
	s := fmt.Sprintf("%s (%s; waiting since %s, %d %s", l.Path, why, l.Since.Local().Format("2 Jan 2006 15:04"), l.Attempts, plural(l.Attempts, "try", "tries"))
	if l.LastError != "" {
		s += "; last: " + l.LastError
	}
	return s + ")"
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
