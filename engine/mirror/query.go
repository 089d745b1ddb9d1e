package mirror

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/sparkfamily/spark/engine/api"
)

// Request is what a client request id (or recall or job id) produced.
type Request struct {
	ID       string
	Kind     string // RequestMoment, RequestTurn, RequestRecall, RequestJob, RequestJobTurn or RequestRecallTurn
	MomentID string
	TurnID   string // the turn of a turn request; a recall's turn; a job's first turn
	Owner    string // the member of the op that first used it ("" when it has none)
}

// Refs are the facts about a moment that the engine's write checks need.
type Refs struct {
	Deleted bool
	// Purged says the moment was removed for good (moment.purge): it is
	// deleted too, and names no media.
	Purged     bool
	CopyID     string // reserved by the create or set by the first copy put
	OriginalID string
	Owner      string // the member of its moment.create ("" when it has none)
}

// Turn is a turn with what the fold knows beyond the wire's fields.
type Turn struct {
	api.Turn
	Job      string
	JobIndex int
	Recall   string
}

// Recall is a quick recall: its moment, its turn and the phrases it used.
type Recall struct {
	ID       string
	MomentID string
	TurnID   string
	Phrases  []RecallPhrase
}

func timeOf(n int64) time.Time { return time.Unix(0, n).UTC() }

func timePtr(n sql.NullInt64) *time.Time {
	if !n.Valid {
		return nil
	}
	t := timeOf(n.Int64)
	return &t
}

func takenAt(s sql.NullString) (*time.Time, error) {
	if !s.Valid {
		return nil, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s.String)
	if err != nil {
		return nil, fmt.Errorf("bad taken_at %q: %w", s.String, err)
	}
	return &t, nil
}

// stmt returns the read statement for q, prepared once: parsing the SQL
// costs more than running these small queries.
func (m *DB) stmt(ctx context.Context, q string) (*sql.Stmt, error) {
	m.awaitFold(ctx)
	if st, ok := m.reads.Load(q); ok {
		return st.(*sql.Stmt), nil
	}
	st, err := m.r.PrepareContext(ctx, q)
	if err != nil {
		return nil, err
	}
	if prev, loaded := m.reads.LoadOrStore(q, st); loaded {
		st.Close()
		return prev.(*sql.Stmt), nil
	}
	return st, nil
}

func (m *DB) query(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	st, err := m.stmt(ctx, q)
	if err != nil {
		return nil, err
	}
	return st.QueryContext(ctx, args...)
}

// row is a single-row result whose error may come from preparing.
type row struct {
	r   *sql.Row
	err error
}

func (r row) Scan(dest ...any) error {
	if r.err != nil {
		return r.err
	}
	return r.r.Scan(dest...)
}

func (m *DB) queryRow(ctx context.Context, q string, args ...any) row {
	st, err := m.stmt(ctx, q)
	if err != nil {
		return row{err: err}
	}
	return row{r: st.QueryRowContext(ctx, args...)}
}

func (m *DB) wrap(what string, err error) error {
	if errors.Is(err, sql.ErrNoRows) {
		return ErrNotFound
	}
	return fmt.Errorf("mirror %s: %s: %w", m.path, what, err)
}

// Request returns what the request id id produced, or ErrNotFound.
func (m *DB) Request(ctx context.Context, id string) (Request, error) {
	if !m.ids.mayHold(requestIDs, id) {
		return Request{}, ErrNotFound
	}
	r := Request{ID: id}
	err := m.queryRow(ctx, "SELECT kind, moment_id, turn_id, owner FROM requests WHERE id = ?", id).
		Scan(&r.Kind, &r.MomentID, &r.TurnID, &r.Owner)
	if err != nil {
		return Request{}, m.wrap("read request", err)
	}
	return r, nil
}

// MomentRefs returns whether moment id is deleted and which media ids it
// names, or ErrNotFound.
func (m *DB) MomentRefs(ctx context.Context, id string) (Refs, error) {
	if !m.ids.mayHold(momentIDs, id) {
		return Refs{}, ErrNotFound
	}
	var deleted, purged sql.NullInt64
	var copyID, originalID sql.NullString
	var owner string
	err := m.queryRow(ctx, "SELECT deleted_at, purged_at, copy_id, original_id, owner FROM moments WHERE id = ?", id).
		Scan(&deleted, &purged, &copyID, &originalID, &owner)
	if err != nil {
		return Refs{}, m.wrap("read moment", err)
	}
	return Refs{Deleted: deleted.Valid, Purged: purged.Valid, CopyID: copyID.String, OriginalID: originalID.String, Owner: owner}, nil
}

// MediaOwner returns the moment and role that name media id id as their copy
// or original (reserved at create or set by a put), or ErrNotFound.
func (m *DB) MediaOwner(ctx context.Context, id string) (momentID, role string, err error) {
	err = m.queryRow(ctx, `SELECT id, 'copy' FROM moments WHERE copy_id = ?1
		UNION ALL SELECT id, 'original' FROM moments WHERE original_id = ?1 LIMIT 1`, id).Scan(&momentID, &role)
	if err != nil {
		return "", "", m.wrap("read media owner", err)
	}
	return momentID, role, nil
}

const momentCols = "id, kind, caption, taken_at, created_at, updated_at, deleted_at, copy_id, original_id, owner"

type scanner interface{ Scan(dest ...any) error }

func scanMoment(s scanner) (*api.Moment, string, string, error) {
	var mo api.Moment
	var taken, copyID, originalID sql.NullString
	var created, updated int64
	var deleted sql.NullInt64
	if err := s.Scan(&mo.ID, &mo.Kind, &mo.Caption, &taken, &created, &updated, &deleted, &copyID, &originalID, &mo.Member); err != nil {
		return nil, "", "", err
	}
	t, err := takenAt(taken)
	if err != nil {
		return nil, "", "", err
	}
	mo.TakenAt = t
	mo.CreatedAt = timeOf(created)
	mo.UpdatedAt = timeOf(updated)
	mo.DeletedAt = timePtr(deleted)
	return &mo, copyID.String, originalID.String, nil
}

// Moment returns moment id with its media and turns (deleted ones too), or
// ErrNotFound, also for a moment purged (MomentRefs tells it apart).
func (m *DB) Moment(ctx context.Context, id string) (*api.Moment, error) {
	if !m.ids.mayHold(momentIDs, id) {
		return nil, ErrNotFound
	}
	mo, copyID, originalID, err := scanMoment(m.queryRow(ctx, "SELECT "+momentCols+" FROM moments WHERE id = ? AND purged_at IS NULL", id))
	if err != nil {
		return nil, m.wrap("read moment", err)
	}
	if err := m.fill(ctx, mo, copyID, originalID); err != nil {
		return nil, err
	}
	return mo, nil
}

// fill adds a moment's media records and turns.
func (m *DB) fill(ctx context.Context, mo *api.Moment, copyID, originalID string) error {
	var err error
	if copyID != "" {
		if mo.Copy, err = m.Media(ctx, copyID); err != nil && !errors.Is(err, ErrNotFound) {
			return err
		}
	}
	if originalID != "" {
		if mo.Original, err = m.Media(ctx, originalID); err != nil && !errors.Is(err, ErrNotFound) {
			return err
		}
	}
	if mo.Alternatives, err = m.alternatives(ctx, mo.ID); err != nil {
		return err
	}
	if mo.Words, err = m.words(ctx, mo.ID); err != nil {
		return err
	}
	mo.Turns, mo.TurnsNext, err = m.MomentTurns(ctx, mo.ID, "", MomentTurnsLimit, MomentTurnBytes)
	return err
}

// words are the words found in a moment's photo [extension]; nil when
// none were kept.
func (m *DB) words(ctx context.Context, momentID string) (*api.Words, error) {
	var w api.Words
	err := m.queryRow(ctx, "SELECT text, lang FROM words WHERE moment_id = ?", momentID).Scan(&w.Text, &w.Lang)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, m.wrap("read words", err)
	}
	return &w, nil
}

// alternatives are the other captions a moment keeps [extension], oldest
// first; nil when it keeps none.
func (m *DB) alternatives(ctx context.Context, momentID string) ([]api.Alternative, error) {
	rows, err := m.query(ctx, "SELECT id, caption, written_at, written_by FROM alternatives WHERE moment_id = ? ORDER BY seq, id", momentID)
	if err != nil {
		return nil, m.wrap("read alternatives", err)
	}
	defer rows.Close()
	var out []api.Alternative
	for rows.Next() {
		var a api.Alternative
		var at sql.NullInt64
		if err := rows.Scan(&a.ID, &a.Caption, &at, &a.WrittenBy); err != nil {
			return nil, m.wrap("read alternatives", err)
		}
		a.WrittenAt = timePtr(at)
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, m.wrap("read alternatives", err)
	}
	return out, nil
}

// A moment read from the mirror carries its first turns only, the oldest,
// up to MomentTurnsLimit of them and about MomentTurnBytes: a moment is
// never read (or answered) whole, however many readings it holds. When
// more follow, its TurnsNext is the cursor for MomentTurns.
const (
	MomentTurnsLimit = 200
	MomentTurnBytes  = 256 << 10
)

// turnOverhead is about what a turn's JSON adds to its texts.
const turnOverhead = 256

// TurnSize is about how many bytes of JSON t takes, for byte budgets.
func TurnSize(t *api.Turn) int {
	return turnOverhead + len(t.Text) + len(t.Error) + len(t.Seat) + len(t.ErrorCode)
}

// ErrBadCursor is returned by MomentTurns for an after that is not a turn
// of the moment.
var ErrBadCursor = errors.New("mirror: the cursor names no turn of this moment")

// MomentTurns returns the turns of moment momentID, oldest first, that
// follow turn after ("" from the first): at most limit, and no more than
// fit in budget by their TurnSize, except that the first is always given
// (so a page is within its budget, or is one turn alone: only logs written
// before the caps hold a turn larger than a budget). next is the id of the last
// turn given when more follow, nil otherwise. Rows are read one at a time,
// so memory stays within the budget whatever the moment holds.
func (m *DB) MomentTurns(ctx context.Context, momentID, after string, limit, budget int) (turns []api.Turn, next *string, err error) {
	afterSeq := int64(-1)
	if after != "" {
		err := m.queryRow(ctx, "SELECT seq FROM turns WHERE id = ? AND moment_id = ?", after, momentID).Scan(&afterSeq)
		if err != nil {
			if err = m.wrap("read turns", err); errors.Is(err, ErrNotFound) {
				return nil, nil, ErrBadCursor
			}
			return nil, nil, err
		}
	}
	rows, err := m.query(ctx, "SELECT "+turnCols+" FROM turns WHERE moment_id = ? AND seq > ? ORDER BY seq LIMIT ?", momentID, afterSeq, limit+1)
	if err != nil {
		return nil, nil, m.wrap("read turns", err)
	}
	defer rows.Close()
	turns = []api.Turn{}
	size := 0
	for rows.Next() {
		if len(turns) == limit {
			id := turns[len(turns)-1].ID
			return turns, &id, nil
		}
		t, err := scanTurn(rows)
		if err != nil {
			return nil, nil, m.wrap("read turns", err)
		}
		n := TurnSize(&t.Turn)
		if len(turns) > 0 && size+n > budget {
			id := turns[len(turns)-1].ID
			return turns, &id, nil
		}
		turns = append(turns, t.Turn)
		size += n
	}
	if err := rows.Err(); err != nil {
		return nil, nil, m.wrap("read turns", err)
	}
	return turns, nil, nil
}

// Moments returns up to limit live moments, newest (highest id) first, with
// ids below before when before is not empty; more says whether others follow.
func (m *DB) Moments(ctx context.Context, limit int, before string) (moments []api.Moment, more bool, err error) {
	return m.moments(ctx, "deleted_at IS NULL", nil, limit, before)
}

// DeletedMoments is Moments of the moments deleted at since or after
// (Recently deleted [extension]), newest (highest id) first.
func (m *DB) DeletedMoments(ctx context.Context, since time.Time, limit int, before string) (moments []api.Moment, more bool, err error) {
	return m.moments(ctx, "deleted_at IS NOT NULL AND purged_at IS NULL AND deleted_at >= ?", []any{nanos(since)}, limit, before)
}

// OldestDeleted returns when the moment deleted longest ago, and not
// purged, was deleted; ok is false when none is.
func (m *DB) OldestDeleted(ctx context.Context) (at time.Time, ok bool, err error) {
	var oldest sql.NullInt64
	if err := m.queryRow(ctx, "SELECT min(deleted_at) FROM moments WHERE deleted_at IS NOT NULL AND purged_at IS NULL").Scan(&oldest); err != nil {
		return time.Time{}, false, m.wrap("read the oldest delete", err)
	}
	if !oldest.Valid {
		return time.Time{}, false, nil
	}
	return timeOf(oldest.Int64), true, nil
}

// PurgeDue returns up to limit moments deleted before before and not yet
// purged, the longest deleted first: those the engine removes for good.
func (m *DB) PurgeDue(ctx context.Context, before time.Time, limit int) ([]string, error) {
	rows, err := m.query(ctx, `SELECT id FROM moments WHERE deleted_at IS NOT NULL AND purged_at IS NULL AND deleted_at < ?
		ORDER BY deleted_at, id LIMIT ?`, nanos(before), limit)
	if err != nil {
		return nil, m.wrap("list moments to purge", err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, m.wrap("list moments to purge", err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return nil, m.wrap("list moments to purge", err)
	}
	return ids, nil
}

// EachGone calls fn with the SHA-256 of every blob that purges left named
// by no media record (media_gone), for the engine to remove from its store.
func (m *DB) EachGone(ctx context.Context, fn func(sha256 string) error) error {
	rows, err := m.query(ctx, "SELECT sha256 FROM media_gone ORDER BY sha256")
	if err != nil {
		return m.wrap("list purged blobs", err)
	}
	var shas []string
	for rows.Next() {
		var sha string
		if err := rows.Scan(&sha); err != nil {
			rows.Close()
			return m.wrap("list purged blobs", err)
		}
		shas = append(shas, sha)
	}
	err = rows.Err()
	rows.Close()
	if err != nil {
		return m.wrap("list purged blobs", err)
	}
	for _, sha := range shas {
		if err := fn(sha); err != nil {
			return err
		}
	}
	return nil
}

// Gone says whether the blob sha256 was left by a purge, named by no media
// record.
func (m *DB) Gone(ctx context.Context, sha256 string) (bool, error) {
	var n int
	if err := m.queryRow(ctx, "SELECT count(*) FROM media_gone WHERE sha256 = ?", sha256).Scan(&n); err != nil {
		return false, m.wrap("read purged blobs", err)
	}
	return n > 0, nil
}

// moments lists the moments where says, as Moments does.
func (m *DB) moments(ctx context.Context, where string, whereArgs []any, limit int, before string) (moments []api.Moment, more bool, err error) {
	q := "SELECT " + momentCols + " FROM moments WHERE " + where
	args := append([]any{}, whereArgs...)
	if before != "" {
		q += " AND id < ?"
		args = append(args, before)
	}
	q += " ORDER BY id DESC LIMIT ?"
	args = append(args, limit+1)
	rows, err := m.query(ctx, q, args...)
	if err != nil {
		return nil, false, m.wrap("list moments", err)
	}
	type ref struct{ copyID, originalID string }
	var refs []ref
	moments = []api.Moment{}
	for rows.Next() {
		mo, c, o, err := scanMoment(rows)
		if err != nil {
			rows.Close()
			return nil, false, m.wrap("list moments", err)
		}
		moments = append(moments, *mo)
		refs = append(refs, ref{c, o})
	}
	if err := rows.Close(); err != nil {
		return nil, false, m.wrap("list moments", err)
	}
	if err := rows.Err(); err != nil {
		return nil, false, m.wrap("list moments", err)
	}
	if len(moments) > limit {
		moments, more = moments[:limit], true
	}
	for i := range moments {
		if err := m.fill(ctx, &moments[i], refs[i].copyID, refs[i].originalID); err != nil {
			return nil, false, err
		}
	}
	return moments, more, nil
}

// Media returns media record id, or ErrNotFound.
func (m *DB) Media(ctx context.Context, id string) (*api.Media, error) {
	var md api.Media
	err := m.queryRow(ctx, "SELECT id, moment_id, role, sha256, size, content_type FROM media WHERE id = ?", id).
		Scan(&md.ID, &md.MomentID, &md.Role, &md.SHA256, &md.Size, &md.ContentType)
	if err != nil {
		return nil, m.wrap("read media", err)
	}
	return &md, nil
}

const turnCols = "id, moment_id, mode, seat, status, text, error, request_id, job_id, job_index, recall_id, started_at, finished_at, error_code"

func (m *DB) queryTurns(ctx context.Context, where string, args ...any) ([]Turn, error) {
	rows, err := m.query(ctx, "SELECT "+turnCols+" FROM turns "+where, args...)
	if err != nil {
		return nil, m.wrap("read turns", err)
	}
	defer rows.Close()
	var turns []Turn
	for rows.Next() {
		t, err := scanTurn(rows)
		if err != nil {
			return nil, m.wrap("read turns", err)
		}
		turns = append(turns, t)
	}
	if err := rows.Err(); err != nil {
		return nil, m.wrap("read turns", err)
	}
	return turns, nil
}

// scanTurn reads a row of turnCols.
func scanTurn(s scanner) (Turn, error) {
	var t Turn
	var started int64
	var finished sql.NullInt64
	if err := s.Scan(&t.ID, &t.MomentID, &t.Mode, &t.Seat, &t.Status, &t.Text, &t.Error,
		&t.ClientRequestID, &t.Job, &t.JobIndex, &t.Recall, &started, &finished, &t.ErrorCode); err != nil {
		return Turn{}, err
	}
	st := timeOf(started)
	t.StartedAt = &st
	t.FinishedAt = timePtr(finished)
	return t, nil
}

// Turn returns turn id, or ErrNotFound.
func (m *DB) Turn(ctx context.Context, id string) (*Turn, error) {
	turns, err := m.queryTurns(ctx, "WHERE id = ?", id)
	if err != nil {
		return nil, err
	}
	if len(turns) == 0 {
		return nil, ErrNotFound
	}
	return &turns[0], nil
}

// JobTurns returns the turns of job id in index order (none for an unknown
// job).
func (m *DB) JobTurns(ctx context.Context, id string) ([]Turn, error) {
	return m.queryTurns(ctx, "WHERE job_id = ? ORDER BY job_index", id)
}

// OpenTurns returns the ids of the turns started and not finished, oldest
// first: the turns the engine's workers have to ask.
func (m *DB) OpenTurns(ctx context.Context) ([]string, error) {
	rows, err := m.query(ctx, "SELECT id FROM turns WHERE finished_at IS NULL ORDER BY seq")
	if err != nil {
		return nil, m.wrap("read open turns", err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, m.wrap("read open turns", err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return nil, m.wrap("read open turns", err)
	}
	return ids, nil
}

// Recall returns quick recall id, or ErrNotFound.
func (m *DB) Recall(ctx context.Context, id string) (*Recall, error) {
	r := Recall{ID: id}
	var phrases string
	err := m.queryRow(ctx, "SELECT moment_id, turn_id, phrases FROM recalls WHERE id = ?", id).
		Scan(&r.MomentID, &r.TurnID, &phrases)
	if err != nil {
		return nil, m.wrap("read recall", err)
	}
	if err := json.Unmarshal([]byte(phrases), &r.Phrases); err != nil {
		return nil, m.wrap("read recall", err)
	}
	return &r, nil
}

const phraseCols = "id, text, moment_id, kept_at, last_recalled_at, owner"

func (m *DB) queryPhrases(ctx context.Context, q string, args ...any) ([]api.Phrase, error) {
	rows, err := m.query(ctx, "SELECT "+phraseCols+" FROM phrases "+q, args...)
	if err != nil {
		return nil, m.wrap("read phrases", err)
	}
	defer rows.Close()
	phrases := []api.Phrase{}
	for rows.Next() {
		var p api.Phrase
		var kept int64
		var recalled sql.NullInt64
		if err := rows.Scan(&p.ID, &p.Text, &p.MomentID, &kept, &recalled, &p.Member); err != nil {
			return nil, m.wrap("read phrases", err)
		}
		p.KeptAt = timeOf(kept)
		p.LastRecalledAt = timePtr(recalled)
		phrases = append(phrases, p)
	}
	if err := rows.Err(); err != nil {
		return nil, m.wrap("read phrases", err)
	}
	return phrases, nil
}

// Phrase returns the active mark id, or ErrNotFound.
func (m *DB) Phrase(ctx context.Context, id string) (*api.Phrase, error) {
	ps, err := m.queryPhrases(ctx, "WHERE id = ?", id)
	if err != nil {
		return nil, err
	}
	if len(ps) == 0 {
		return nil, ErrNotFound
	}
	return &ps[0], nil
}

// Phrases returns the active marks, oldest kept first.
func (m *DB) Phrases(ctx context.Context) ([]api.Phrase, error) {
	return m.queryPhrases(ctx, "ORDER BY seq")
}

// LeastRecalled returns up to n active marks, the never recalled first
// (oldest kept first), then the least recently recalled.
func (m *DB) LeastRecalled(ctx context.Context, n int) ([]api.Phrase, error) {
	return m.queryPhrases(ctx, "ORDER BY last_recalled_at IS NOT NULL, last_recalled_at, seq LIMIT ?", n)
}

// EachMedia calls fn for every media record, in id order (fsck re-hashes
// their blobs).
func (m *DB) EachMedia(ctx context.Context, fn func(api.Media) error) error {
	rows, err := m.query(ctx, "SELECT id, moment_id, role, sha256, size, content_type FROM media ORDER BY id")
	if err != nil {
		return m.wrap("list media", err)
	}
	defer rows.Close()
	for rows.Next() {
		var md api.Media
		if err := rows.Scan(&md.ID, &md.MomentID, &md.Role, &md.SHA256, &md.Size, &md.ContentType); err != nil {
			return m.wrap("list media", err)
		}
		if err := fn(md); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return m.wrap("list media", err)
	}
	return nil
}

// TurnCount returns how many turns moment id holds (0 for an unknown one).
func (m *DB) TurnCount(ctx context.Context, momentID string) (int, error) {
	var n int
	if err := m.queryRow(ctx, "SELECT count(*) FROM turns WHERE moment_id = ?", momentID).Scan(&n); err != nil {
		return 0, m.wrap("count turns", err)
	}
	return n, nil
}

// PhrasesAfter returns up to limit active marks kept after the mark whose
// seq is after (0 from the first), oldest first; next is the seq of the
// last one given when more follow, nil otherwise.
func (m *DB) PhrasesAfter(ctx context.Context, after uint64, limit int) (phrases []api.Phrase, next *uint64, err error) {
	rows, err := m.query(ctx, "SELECT "+phraseCols+", seq FROM phrases WHERE seq > ? ORDER BY seq LIMIT ?", int64(after), limit+1)
	if err != nil {
		return nil, nil, m.wrap("read phrases", err)
	}
	defer rows.Close()
	phrases = []api.Phrase{}
	var last uint64
	for rows.Next() {
		if len(phrases) == limit {
			return phrases, &last, nil
		}
		var p api.Phrase
		var kept int64
		var recalled sql.NullInt64
		if err := rows.Scan(&p.ID, &p.Text, &p.MomentID, &kept, &recalled, &p.Member, &last); err != nil {
			return nil, nil, m.wrap("read phrases", err)
		}
		p.KeptAt = timeOf(kept)
		p.LastRecalledAt = timePtr(recalled)
		phrases = append(phrases, p)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, m.wrap("read phrases", err)
	}
	return phrases, nil, nil
}
