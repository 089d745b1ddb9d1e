package outbox

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/sparkfamily/spark/atomicfile"
)

// State is where an entry stands.
type State string

const (
	// Pending entries are waiting to be delivered (now, or after a back-off).
	Pending State = "pending"
	// Parked entries were refused by the engine for a reason retrying will
	// not fix; they wait for the user to retry or discard them.
	Parked State = "parked"
	// Done entries are delivered: every step acknowledged by the engine.
	Done State = "done"
)

// The drain's steps, in the contract's order.
const (
	StepCreate   = "create"   // create the moment
	StepCopy     = "copy"     // upload the small copy
	StepTurn     = "turn"     // start the practical turn
	StepOriginal = "original" // upload the original
)

// Steps lists the step names in order.
var Steps = []string{StepCreate, StepCopy, StepTurn, StepOriginal}

// StepStatus is one step of an entry's delivery.
type StepStatus struct {
	Name string `json:"name"`
	Done bool   `json:"done"`
}

// Entry is one captured photo and its delivery.
type Entry struct {
	ID            string `json:"id"` // also the moment create's client request id
	MomentID      string `json:"moment_id"`
	CopyID        string `json:"copy_id"`
	OriginalID    string `json:"original_id"`
	TurnRequestID string `json:"turn_request_id"`
	TurnID        string `json:"turn_id,omitempty"`

	Source      string `json:"source"` // the path it was imported from
	Name        string `json:"name"`
	Format      string `json:"format"`
	ContentType string `json:"content_type"`
	Size        int64  `json:"size"`
	SHA256      string `json:"sha256"`
	CopySize    int64  `json:"copy_size"`
	CopySHA256  string `json:"copy_sha256"`
	CopyWidth   int    `json:"copy_width"`
	CopyHeight  int    `json:"copy_height"`

	// TakenAt is when the photo was taken, in UTC: its EXIF date
	// (photo.Info.Taken) when it has one, else the file's modification
	// time.
	TakenAt     *time.Time `json:"taken_at,omitempty"`
	CapturedAt  time.Time  `json:"captured_at"`
	DeliveredAt *time.Time `json:"delivered_at,omitempty"`

	State     State        `json:"state"`
	Steps     []StepStatus `json:"steps"`
	StepsDone int          `json:"steps_done"`
	Target    string       `json:"target,omitempty"` // engine the done steps went to
	Attempts  int          `json:"attempts"`         // failures since the last success
	LastCode  string       `json:"last_code,omitempty"`
	LastError string       `json:"last_error,omitempty"`
	NextTry   *time.Time   `json:"next_try,omitempty"` // set while waiting after trouble
}

const entryColumns = `id, moment_id, copy_id, original_id, turn_request_id, turn_id,
	source, name, format, content_type, size, sha256, copy_size, copy_sha256, copy_width, copy_height,
	taken_at, captured_at, delivered_at, state, steps, target, attempts, last_code, last_error, next_try`

type scanner interface{ Scan(dest ...any) error }

func scanEntry(s scanner) (*Entry, error) {
	var e Entry
	var takenAt, deliveredAt sql.NullString
	var capturedAt string
	var nextTry int64
	err := s.Scan(&e.ID, &e.MomentID, &e.CopyID, &e.OriginalID, &e.TurnRequestID, &e.TurnID,
		&e.Source, &e.Name, &e.Format, &e.ContentType, &e.Size, &e.SHA256, &e.CopySize, &e.CopySHA256,
		&e.CopyWidth, &e.CopyHeight, &takenAt, &capturedAt, &deliveredAt, &e.State, &e.StepsDone,
		&e.Target, &e.Attempts, &e.LastCode, &e.LastError, &nextTry)
	if err != nil {
		return nil, err
	}
	e.TakenAt = parseTimePtr(takenAt)
	e.DeliveredAt = parseTimePtr(deliveredAt)
	e.CapturedAt, _ = time.Parse(time.RFC3339Nano, capturedAt)
	if nextTry > 0 && e.State == Pending {
		t := time.UnixMilli(nextTry)
		e.NextTry = &t
	}
	for i, name := range Steps {
		e.Steps = append(e.Steps, StepStatus{Name: name, Done: i < e.StepsDone})
	}
	return &e, nil
}

func parseTimePtr(s sql.NullString) *time.Time {
	if !s.Valid || s.String == "" {
		return nil
	}
	t, err := time.Parse(time.RFC3339Nano, s.String)
	if err != nil {
		return nil
	}
	return &t
}

func formatTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// Entries lists every entry, oldest capture first.
func (o *Outbox) Entries(ctx context.Context) ([]Entry, error) {
	return o.queryEntries(ctx, "list outbox", "ORDER BY captured_at, id")
}

func (o *Outbox) queryEntries(ctx context.Context, what, where string, args ...any) ([]Entry, error) {
	rows, err := o.db.QueryContext(ctx, "SELECT "+entryColumns+" FROM entries "+where, args...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	defer rows.Close()
	var out []Entry
	for rows.Next() {
		e, err := scanEntry(rows)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		out = append(out, *e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return out, nil
}

// Entry returns one entry, or ErrNotFound.
func (o *Outbox) Entry(ctx context.Context, id string) (*Entry, error) {
	e, err := scanEntry(o.db.QueryRowContext(ctx, "SELECT "+entryColumns+" FROM entries WHERE id = ?", id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	if err != nil {
		return nil, fmt.Errorf("read outbox entry %s: %w", id, err)
	}
	return e, nil
}

// Counts is how many entries are in each state.
type Counts struct {
	Pending int `json:"pending"`
	Parked  int `json:"parked"`
	Done    int `json:"done"`
}

// Counts counts entries per state.
func (o *Outbox) Counts(ctx context.Context) (Counts, error) {
	var c Counts
	rows, err := o.db.QueryContext(ctx, "SELECT state, count(*) FROM entries GROUP BY state")
	if err != nil {
		return c, fmt.Errorf("count outbox: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var s State
		var n int
		if err := rows.Scan(&s, &n); err != nil {
			return c, fmt.Errorf("count outbox: %w", err)
		}
		switch s {
		case Pending:
			c.Pending = n
		case Parked:
			c.Parked = n
		case Done:
			c.Done = n
		}
	}
	return c, rows.Err()
}

// SmallCopyPath returns the path of an entry's small copy, for showing it.
// It fails once the entry is delivered and its files removed.
func (o *Outbox) SmallCopyPath(id string) (string, error) {
	if !validEntryID(id) {
		return "", fmt.Errorf("%w: %q", ErrNotFound, id)
	}
	p := filepath.Join(o.entryDir(id), copyName)
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("%w: no small copy for %s in the outbox (delivered, discarded or never captured)", ErrNotFound, id)
	}
	return p, nil
}

// validEntryID keeps ids given by callers from naming paths outside files/.
func validEntryID(id string) bool {
	return id != "" && !strings.ContainsAny(id, `/\.`) && len(id) <= 64
}

// Retry puts a parked (or waiting) entry back to pending with its attempts
// reset, and wakes the drain.
func (o *Outbox) Retry(ctx context.Context, id string) error {
	res, err := o.db.ExecContext(ctx, `UPDATE entries SET state = 'pending', attempts = 0, next_try = 0,
		last_code = '', last_error = '' WHERE id = ? AND state != 'done'`, id)
	if err != nil {
		return fmt.Errorf("retry %s: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		if _, err := o.Entry(ctx, id); err != nil {
			return fmt.Errorf("retry: %w", err)
		}
		return fmt.Errorf("retry %s: it is already delivered", id)
	}
	o.events.publish(Event{Kind: EventRetried, EntryID: id, At: o.opts.Now()})
	o.Kick()
	return nil
}

// RetryAll puts every parked entry back to pending and wakes the drain. It
// returns how many it moved.
func (o *Outbox) RetryAll(ctx context.Context) (int, error) {
	rows, err := o.db.QueryContext(ctx, `UPDATE entries SET state = 'pending', attempts = 0, next_try = 0,
		last_code = '', last_error = '' WHERE state = 'parked' RETURNING id`)
	if err != nil {
		return 0, fmt.Errorf("retry all: %w", err)
	}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return 0, fmt.Errorf("retry all: %w", err)
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("retry all: %w", err)
	}
	now := o.opts.Now()
	for _, id := range ids {
		o.events.publish(Event{Kind: EventRetried, EntryID: id, At: now})
	}
	o.Kick()
	return len(ids), nil
}

// Discard removes an entry and its files. When exportDir is not empty the
// original is first copied there by ExportOriginal, so the user keeps the
// photo; it returns the exported path. Files that cannot be removed yet (a
// file held open on Windows) are removed later; see Leftovers. A delivery in
// progress for the entry is stopped first.
func (o *Outbox) Discard(ctx context.Context, id, exportDir string) (string, error) {
	if _, err := o.Entry(ctx, id); err != nil {
		return "", fmt.Errorf("discard: %w", err)
	}
	o.drain.stopEntry(id)
	defer o.drain.release(id)
	var exported string
	if exportDir != "" {
		var err error
		exported, err = o.ExportOriginal(ctx, id, exportDir)
		if err != nil {
			return "", fmt.Errorf("discard %s: %w", id, err)
		}
	}
	// The row goes with its files' removal recorded, in one transaction,
	// so the files are never forgotten: removed now, or (a file held open)
	// remembered and removed later, never an error.
	if err := o.forget(ctx, id); err != nil {
		return "", fmt.Errorf("discard %s: %w", id, err)
	}
	o.removeFiles(ctx, "files/"+id, id, ReasonDiscarded)
	o.events.publish(Event{Kind: EventRemoved, EntryID: id, At: o.opts.Now()})
	return exported, nil
}

// ExportOriginal copies an entry's original into dir (made if missing)
// under the entry's file name, made unique beside files already there
// ("name (2).jpg"), and returns the copy's path once it and dir are
// fsync'ed. The entry stays in the outbox and its delivery goes on. The
// error wraps ErrNotFound for an unknown entry and ErrNoOriginal once the
// original was delivered.
func (o *Outbox) ExportOriginal(ctx context.Context, id, dir string) (string, error) {
	e, err := o.Entry(ctx, id)
	if err != nil {
		return "", fmt.Errorf("export the original: %w", err)
	}
	src, err := os.Open(filepath.Join(o.entryDir(e.ID), originalName))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("%w (it was delivered; get it from the engine): %w", ErrNoOriginal, err)
		}
		return "", fmt.Errorf("export the original: %w", err)
	}
	defer src.Close()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("export the original: %w", err)
	}
	name := e.Name
	if name == "" {
		name = e.ID
	}
	ext := filepath.Ext(name)
	base := strings.TrimSuffix(name, ext)
	var dst *os.File
	var path string
	for i := 1; ; i++ {
		path = filepath.Join(dir, name)
		if i > 1 {
			path = filepath.Join(dir, fmt.Sprintf("%s (%d)%s", base, i, ext))
		}
		dst, err = os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			break
		}
		if !errors.Is(err, os.ErrExist) || i > 1000 {
			return "", fmt.Errorf("export the original to %s: %w", dir, err)
		}
	}
	_, err = io.Copy(dst, src)
	if err == nil {
		err = dst.Sync()
	}
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return "", fmt.Errorf("export the original to %s: %w", path, diskFull(err, e.Size))
	}
	return path, atomicfile.SyncDir(dir)
}

// DeliveredSince lists the entries delivered at t or after (a second
// before t, at worst: times are compared as stored text), oldest first:
// what a replica of the engine may not hold yet.
func (o *Outbox) DeliveredSince(ctx context.Context, t time.Time) ([]Entry, error) {
	return o.queryEntries(ctx, "list delivered entries", "WHERE state = 'done' AND delivered_at >= ? ORDER BY delivered_at, id",
		formatTime(t.Add(-time.Second)))
}
