package mirror

import (
	"cmp"
	"context"
	"database/sql"
	_ "embed"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	_ "modernc.org/sqlite" // the "sqlite" database/sql driver, pure Go

	"github.com/sparkfamily/spark/internal/sqlitedb"
)

// SchemaVersion is the version of the schema (schema.sql, then
// search.sql), kept in PRAGMA user_version. Any change to the schema or to
// what the fold writes bumps it, so that an old mirror is migrated (see
// migrations) or refused and rebuilt rather than misread.
//
// Version 2 gave the turns of jobs and quick recalls their derived request
// ids (requestids.sql); version 3 added full-text search (search.sql);
// version 4 the owners of moments and request ids (owners.sql); version 5
// the codes of why failed readings failed (errorcodes.sql); version 6 the
// owners of kept phrases, and owners that are family members
// (phraseowners.sql); version 7 the alternatives of captions written on
// two computers from the same base (alternatives.sql); version 8 the words
// found in photos (words.sql); version 9 moments removed for good and the
// blobs they leave (purge.sql).
const SchemaVersion = 9

//go:embed schema.sql
var schema string

//go:embed requestids.sql
var requestIDsMigration string

//go:embed search.sql
var searchSchema string

//go:embed owners.sql
var ownersSchema string

//go:embed errorcodes.sql
var errorCodesSchema string

//go:embed phraseowners.sql
var phraseOwnersSchema string

//go:embed alternatives.sql
var alternativesSchema string

//go:embed words.sql
var wordsSchema string

//go:embed purge.sql
var purgeSchema string

// migrations bring a mirror of an older version up to SchemaVersion with
// sqlitedb.Migrate, each in the transaction that stores its version. A
// mirror older than the first migration is refused (StaleError) and
// rebuilt from the log. A migration that needs what only the log holds
// reads it through members (Options.Members); have is the version the
// mirror had before the first.
func migrations(path string, have int, members MembersFunc) []sqlitedb.Migration {
	return []sqlitedb.Migration{
		{Version: 2, SQL: requestIDsMigration},                    // the derived request ids of job and recall turns
		{Version: 3, SQL: searchSchema},                           // full-text search, indexing the rows already there
		{Version: 4, SQL: ownersSchema},                           // owners of moments and request ids
		{Version: 5, SQL: errorCodesSchema, Go: deriveErrorCodes}, // why failed readings failed, derived for those logged before
		{Version: 6, SQL: phraseOwnersSchema, Go: func(ctx context.Context, tx *sql.Tx) error { // who keeps each phrase, read from the log
			if have < 4 {
				// Every op this mirror folded was logged before ops
				// had authors: its phrases have no owner, as a rebuild
				// gives them.
				return nil
			}
			return derivePhraseOwners(ctx, tx, path, members)
		}},
		{Version: 7, SQL: alternativesSchema}, // captions written from the same base on two computers
		{Version: 8, SQL: wordsSchema},        // the words found in photos
		{Version: 9, SQL: purgeSchema},        // moments removed for good, and their blobs
	}
}

// MembersFunc returns the member of each op of the log at seqs
// (oplog.Record.MemberOf): what a migration needs that the mirror never
// kept.
type MembersFunc func(ctx context.Context, seqs []uint64) (map[uint64]string, error)

// ErrStale matches (errors.Is) the error Open returns for a mirror written
// by another schema version; its message says how to rebuild it.
var ErrStale = errors.New("mirror: stale schema")

// ErrNotFound is returned by the read queries for an id the mirror does not
// hold.
var ErrNotFound = errors.New("mirror: not found")

// StaleError reports a mirror of another schema version.
type StaleError struct {
	Path       string
	Have, Want int
}

func (e *StaleError) Error() string {
	return fmt.Sprintf("mirror %s has schema version %d but this engine needs %d; rebuild it from the op log with `spark-engine rebuild --data %s`",
		e.Path, e.Have, e.Want, filepath.Dir(e.Path))
}

// Is makes errors.Is(err, ErrStale) true.
func (e *StaleError) Is(target error) bool { return target == ErrStale }

// Options tune Open.
type Options struct {
	// Bulk is for a fresh mirror being rebuilt: no fsync (synchronous=OFF),
	// the journal in memory and a larger page cache. The caller syncs the
	// file once at the end, before it swaps it in; Rebuild does.
	Bulk bool
	// IDIndex keeps in memory a hash of every request id and moment id, so
	// that Request, Moment and MomentRefs answer a new id's ErrNotFound
	// without reading SQLite (the engine's hot path: every create checks
	// that its ids are new). It costs a scan of both tables at Open and
	// about 20 bytes of memory per id.
	IDIndex bool
	// SearchBudget is how long one search may take, waiting for its turn
	// included (0: DefaultSearchBudget).
	SearchBudget time.Duration
	// Members reads the log the mirror is the fold of, for the migration
	// of a version-5 mirror that holds kept phrases (who kept each is in
	// the log only). Without it such a mirror is stale (a replica, which
	// has no log, starts again; the engine, fsck and rebuild pass it).
	Members MembersFunc
}

// DB is an open mirror. Writes go through Apply only, on one connection;
// reads use a separate pool of read-only connections, which WAL lets run
// beside a write.
type DB struct {
	path string
	w    *sql.DB
	r    *sql.DB
	fold folder
	// reads caches the prepared read statements, by query text.
	reads sync.Map
	// applyMu makes Apply calls one at a time; lastSeq is the seq Apply
	// last stored (read from the file at Open).
	applyMu sync.Mutex
	lastSeq atomic.Uint64
	// ids is the id index of Options.IDIndex, nil without it.
	ids *idSet
	// behind is how far the log's answers are ahead of the fold.
	behind behind
	// searches holds a slot for each search running (maxSearches), so that
	// searches leave the other read connections to the other reads;
	// searchBudget bounds each.
	searches     chan struct{}
	searchBudget time.Duration
	// members is Options.Members, for a migration.
	members MembersFunc
}

func dsn(path string, bulk, readOnly bool) string {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "foreign_keys(1)")
	switch {
	case readOnly:
		q.Add("_pragma", "synchronous(NORMAL)")
		q.Add("_pragma", "query_only(1)")
	case bulk:
		// A fresh mirror being rebuilt is thrown away if anything fails,
		// so it needs neither fsyncs nor a journal on disk; a larger page
		// cache keeps the indexes' pages in memory (32 MiB at most).
		q.Add("_pragma", "synchronous(OFF)")
		q.Add("_pragma", "journal_mode(MEMORY)")
		q.Add("_pragma", "cache_size(-32768)")
		q.Set("_txlock", "immediate")
	default:
		// The log is the truth and the mirror can be refolded from it, so
		// NORMAL (no fsync per commit in WAL mode) is enough.
		q.Add("_pragma", "synchronous(NORMAL)")
		q.Add("_pragma", "journal_mode(WAL)")
		// The fold's statement journals (each INSERT of a run of creates
		// keeps the pages it changes, to undo itself alone) stay in memory
		// instead of spilling to a temporary file past 64 KiB: the scattered
		// request ids of many clients touch a page each.
		q.Add("_pragma", "temp_store(MEMORY)")
		q.Set("_txlock", "immediate")
	}
	// A file: URI with the path escaped (sqlitedb): the plain form cuts
	// the path at its first "?".
	return sqlitedb.DSN(path, q)
}

// Open opens the mirror at path, creating it with the current schema when
// the file is new; its files are readable by their owner only. A mirror of
// an older schema version is migrated in place (see migrations); one of a
// version that cannot be migrated is refused with a *StaleError.
func Open(ctx context.Context, path string, opts Options) (*DB, error) {
	if err := ownerOnly(path); err != nil {
		return nil, err
	}
	w, err := sql.Open("sqlite", dsn(path, opts.Bulk, false))
	if err != nil {
		return nil, fmt.Errorf("open mirror %s: %w", path, err)
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	w.SetConnMaxIdleTime(0)
	m := &DB{path: path, w: w, members: opts.Members, searches: make(chan struct{}, maxSearches), searchBudget: cmp.Or(opts.SearchBudget, DefaultSearchBudget)}
	if err := m.init(ctx); err != nil {
		w.Close()
		return nil, err
	}
	var last int64
	if err := w.QueryRowContext(ctx, "SELECT value FROM meta WHERE key = 'last_seq'").Scan(&last); err != nil {
		w.Close()
		return nil, fmt.Errorf("mirror %s: read last seq: %w", path, err)
	}
	m.lastSeq.Store(uint64(last))
	if opts.IDIndex {
		if err := m.loadIDs(ctx); err != nil {
			w.Close()
			return nil, err
		}
	}
	r, err := sql.Open("sqlite", dsn(path, opts.Bulk, true))
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("open mirror %s: %w", path, err)
	}
	r.SetMaxOpenConns(4)
	r.SetMaxIdleConns(4)
	m.r = r
	return m, nil
}

// init creates the schema in a new file or checks the version of an old one.
func (m *DB) init(ctx context.Context) error {
	var version, tables int
	if err := m.w.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return fmt.Errorf("open mirror %s: %w", m.path, err)
	}
	if err := m.w.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema WHERE type = 'table'").Scan(&tables); err != nil {
		return fmt.Errorf("open mirror %s: %w", m.path, err)
	}
	if version == SchemaVersion {
		return nil
	}
	if version != 0 || tables != 0 {
		return m.migrate(ctx, version)
	}
	tx, err := m.w.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("create mirror %s: %w", m.path, err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, schema); err != nil {
		return fmt.Errorf("create mirror %s: %w", m.path, err)
	}
	if _, err := tx.ExecContext(ctx, searchSchema); err != nil {
		return fmt.Errorf("create mirror %s: %w", m.path, err)
	}
	if _, err := tx.ExecContext(ctx, ownersSchema); err != nil {
		return fmt.Errorf("create mirror %s: %w", m.path, err)
	}
	if _, err := tx.ExecContext(ctx, errorCodesSchema); err != nil {
		return fmt.Errorf("create mirror %s: %w", m.path, err)
	}
	if _, err := tx.ExecContext(ctx, phraseOwnersSchema); err != nil {
		return fmt.Errorf("create mirror %s: %w", m.path, err)
	}
	if _, err := tx.ExecContext(ctx, alternativesSchema); err != nil {
		return fmt.Errorf("create mirror %s: %w", m.path, err)
	}
	if _, err := tx.ExecContext(ctx, wordsSchema); err != nil {
		return fmt.Errorf("create mirror %s: %w", m.path, err)
	}
	if _, err := tx.ExecContext(ctx, purgeSchema); err != nil {
		return fmt.Errorf("create mirror %s: %w", m.path, err)
	}
	if _, err := tx.ExecContext(ctx, "INSERT INTO meta (key, value) VALUES ('last_seq', 0)"); err != nil {
		return fmt.Errorf("create mirror %s: %w", m.path, err)
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", SchemaVersion)); err != nil {
		return fmt.Errorf("create mirror %s: %w", m.path, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("create mirror %s: %w", m.path, err)
	}
	return nil
}

// migrate brings a mirror of an older version up to SchemaVersion, one
// migration after another, each in its own transaction (sqlitedb.Migrate);
// a version with no migration (or a newer one) is a *StaleError.
func (m *DB) migrate(ctx context.Context, version int) error {
	if version <= 0 || version > SchemaVersion {
		return &StaleError{Path: m.path, Have: version, Want: SchemaVersion}
	}
	_, err := sqlitedb.Migrate(ctx, m.w, migrations(m.path, version, m.members))
	var ve *sqlitedb.VersionError
	switch {
	case errors.As(err, &ve):
		return &StaleError{Path: m.path, Have: version, Want: SchemaVersion}
	case errors.Is(err, ErrStale):
		return &StaleError{Path: m.path, Have: version, Want: SchemaVersion}
	case err != nil:
		return fmt.Errorf("migrate mirror %s: %w; rebuild it with `spark-engine rebuild --data %s`", m.path, err, filepath.Dir(m.path))
	}
	return nil
}

// Path returns the mirror's file name.
func (m *DB) Path() string { return m.path }

// LastSeq returns the seq of the last op folded into the mirror (0 for a new
// mirror).
func (m *DB) LastSeq(ctx context.Context) (uint64, error) {
	return m.lastSeq.Load(), nil
}

// Checkpoint copies the WAL into the database file and syncs it, so the
// file alone holds every fold (Rebuild calls it before the swap).
func (m *DB) Checkpoint(ctx context.Context) error {
	m.applyMu.Lock()
	defer m.applyMu.Unlock()
	if err := m.prepare(ctx); err != nil {
		return err
	}
	if _, err := m.fold.stmts[sqlCheckpoint].ExecContext(ctx); err != nil {
		return fmt.Errorf("mirror %s: checkpoint: %w", m.path, err)
	}
	return nil
}

// Close closes the mirror.
func (m *DB) Close() error {
	var errs []error
	m.reads.Range(func(_, st any) bool {
		errs = append(errs, st.(*sql.Stmt).Close())
		return true
	})
	for _, st := range m.fold.stmts {
		errs = append(errs, st.Close())
	}
	if m.fold.conn != nil {
		errs = append(errs, m.fold.conn.Close())
	}
	if m.r != nil {
		errs = append(errs, m.r.Close())
	}
	errs = append(errs, m.w.Close())
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("close mirror %s: %w", m.path, err)
	}
	return nil
}
