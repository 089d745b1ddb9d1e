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

	"github.com/sparkfamily/spark/internal/atomicfile"
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

	// Sending is the upload of one of the entry's files under way while
	// the entry waits: the bytes the engine last said it holds, kept in
	// the outbox database until the step is done; nil when none.
	Sending *Sending `json:"sending,omitempty"`
}

// entry is r as a photo's Entry.
func (r *row) entry() *Entry {
	e := Entry{ID: r.ID, MomentID: r.MomentID, CopyID: r.CopyID, OriginalID: r.OriginalID, TurnRequestID: r.TurnReqID,
		TurnID: r.TurnID, Source: r.Source, Name: r.Name, Format: r.Format, ContentType: r.ContentType, Size: r.Size,
		SHA256: r.SHA256, CopySize: r.CopySize, CopySHA256: r.CopySHA256, CopyWidth: r.CopyWidth, CopyHeight: r.CopyHeight,
		TakenAt: r.TakenAt, CapturedAt: r.MadeAt, DeliveredAt: r.DoneAt, State: r.State, StepsDone: r.Steps, Target: r.Target,
		Attempts: r.Attempts, LastCode: r.LastCode, LastError: r.LastError, NextTry: r.nextTry(), Sending: r.sending()}
	for i, name := range Steps {
		e.Steps = append(e.Steps, StepStatus{Name: name, Done: i < e.StepsDone})
	}
	return &e
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

// Entries lists every photo, oldest capture first.
func (o *Outbox) Entries(ctx context.Context) ([]Entry, error) {
	return o.queryEntries(ctx, "list outbox", "WHERE kind = 'photo' ORDER BY made_at, id")
}

func (o *Outbox) queryEntries(ctx context.Context, what, where string, args ...any) ([]Entry, error) {
	rs, err := o.queryRows(ctx, o.db, where, args...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	var out []Entry
	for _, r := range rs {
		out = append(out, *r.entry())
	}
	return out, nil
}

// Entry returns one photo, or ErrNotFound.
func (o *Outbox) Entry(ctx context.Context, id string) (*Entry, error) {
	r, err := o.row(ctx, id)
	if err != nil {
		return nil, err
	}
	if r.Kind != KindPhoto {
		return nil, fmt.Errorf("%w: %s is a %s, not a photo", ErrNotFound, id, r.Kind)
	}
	return r.entry(), nil
}

// MomentOf returns the moment of a photo entry, in the outbox or
// delivered and discarded since (a capture's DuplicateOf names either), or
// ErrNotFound.
func (o *Outbox) MomentOf(ctx context.Context, entryID string) (string, error) {
	var id string
	err := o.db.QueryRowContext(ctx, `SELECT moment_id FROM queue WHERE id = ?1 AND kind = 'photo'
		UNION ALL SELECT moment_id FROM delivered WHERE entry_id = ?1 LIMIT 1`, entryID).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("%w: %s", ErrNotFound, entryID)
	}
	if err != nil {
		return "", fmt.Errorf("read the moment of entry %s: %w", entryID, err)
	}
	return id, nil
}

// Counts is how many entries are in each state.
type Counts struct {
	Pending int `json:"pending"`
	Parked  int `json:"parked"`
	Done    int `json:"done"`
}

// Counts counts photos per state.
func (o *Outbox) Counts(ctx context.Context) (Counts, error) {
	var c Counts
	rows, err := o.db.QueryContext(ctx, "SELECT state, count(*) FROM queue WHERE kind = 'photo' GROUP BY state")
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
	return o.queryEntries(ctx, "list delivered entries", "WHERE kind = 'photo' AND state = 'done' AND done_at >= ? ORDER BY done_at, id",
		formatTime(t.Add(-time.Second)))
}
