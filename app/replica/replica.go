package replica

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/mirror"
	"github.com/sparkfamily/spark/internal/dirlock"
	"github.com/sparkfamily/spark/internal/sqlitedb"
)

// FormatVersion is the version of the replica's folder (see the package
// doc). A replica of another version is replaced by an empty one.
const FormatVersion = 1

// DefaultCacheBytes is the small copies' byte budget when Options gives
// none.
const DefaultCacheBytes = 2 << 30

// Files of the replica's folder.
const (
	DBFile    = "replica.db"
	CopiesDir = "copies"
	lockFile  = "replica.lock"
)

// ErrLocked is returned by Open while another process uses the replica.
var ErrLocked = errors.New("replica: the replica is in use by another Spark process (the app, or another spark command); close it and try again")

// Options tune Open.
type Options struct {
	// CacheBytes is the small copies' byte budget; 0 is DefaultCacheBytes.
	CacheBytes int64
	// PageLimit is how many ops one request asks for; 0 is
	// api.MaxOpsLimit (the contract's most).
	PageLimit int
	// Logger gets what the replica does; nil is slog.Default().
	Logger *slog.Logger
	// Now is the clock of synced_at and of viewing a copy; nil is time.Now.
	Now func() time.Time
}

// Replica is an open replica. Its methods are safe for concurrent use; one
// Sync or Rebuild runs at a time.
type Replica struct {
	dir  string
	opts Options
	lock *sqlitedb.FolderLock

	// syncMu makes Sync and Rebuild one at a time; dbMu guards db, which a
	// reset replaces.
	syncMu sync.Mutex
	dbMu   sync.RWMutex
	db     *mirror.DB

	copies *Cache
}

// State is where a replica stands.
type State struct {
	// Engine is the id of the engine it copies ("" before the first sync).
	Engine string
	// Seq is the seq of the last op folded (the cursor).
	Seq uint64
	// LastOp is the SHA-256 (hex) of that op as the engine served it.
	LastOp string
	// SyncedAt is when the replica last caught up with the engine's head
	// (zero before that).
	SyncedAt time.Time
}

// Open opens (or creates) the replica in dir.
func Open(ctx context.Context, dir string, opts Options) (*Replica, error) {
	if opts.CacheBytes <= 0 {
		opts.CacheBytes = DefaultCacheBytes
	}
	if opts.PageLimit <= 0 {
		opts.PageLimit = api.MaxOpsLimit
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("replica: create %s: %w", dir, err)
	}
	lock, err := takeLock(ctx, dir)
	if err != nil {
		return nil, err
	}
	r := &Replica{dir: dir, opts: opts, lock: lock}
	ok := false
	defer func() {
		if !ok {
			r.Close()
		}
	}()
	if r.copies, err = openCache(filepath.Join(dir, CopiesDir), opts.CacheBytes, opts.Now); err != nil {
		return nil, err
	}
	if r.db, err = r.openDB(ctx); err != nil {
		return nil, err
	}
	ok = true
	return r, nil
}

// openDB opens replica.db, replacing a file of another mirror schema or
// replica format by an empty one.
func (r *Replica) openDB(ctx context.Context) (*mirror.DB, error) {
	path := filepath.Join(r.dir, DBFile)
	db, err := mirror.Open(ctx, path, mirror.Options{})
	if errors.Is(err, mirror.ErrStale) {
		r.opts.Logger.Info("replica: the copy on this computer was written by another version of Spark; starting it again", "err", err)
		if err := removeDB(path); err != nil {
			return nil, err
		}
		db, err = mirror.Open(ctx, path, mirror.Options{})
	}
	if err != nil {
		return nil, fmt.Errorf("replica: %w", err)
	}
	format, err := initState(ctx, db)
	if err == nil && format != FormatVersion {
		r.opts.Logger.Info("replica: the copy on this computer has another format; starting it again", "format", format, "want", FormatVersion)
		db.Close()
		if err := removeDB(path); err != nil {
			return nil, err
		}
		return r.openDB(ctx)
	}
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("replica: %w", err)
	}
	return db, nil
}

// initState creates replica_state in a new file and returns its format.
func initState(ctx context.Context, db *mirror.DB) (int, error) {
	err := db.ApplyWith(ctx, nil, func(exec mirror.Exec) error {
		if err := exec("CREATE TABLE IF NOT EXISTS replica_state (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID"); err != nil {
			return err
		}
		return exec("INSERT INTO replica_state (key, value) VALUES ('format', ?) ON CONFLICT DO NOTHING", strconv.Itoa(FormatVersion))
	})
	if err != nil {
		return 0, fmt.Errorf("create the replica's state: %w", err)
	}
	var v string
	if err := db.QueryRow(ctx, "SELECT value FROM replica_state WHERE key = 'format'").Scan(&v); err != nil {
		return 0, fmt.Errorf("read the replica's format: %w", err)
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return -1, nil
	}
	return n, nil
}

// setState is what a fold's transaction stores in replica_state.
func setState(exec mirror.Exec, key, value string) error {
	return exec("INSERT INTO replica_state (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value", key, value)
}

// State returns where the replica stands.
func (r *Replica) State(ctx context.Context) (State, error) {
	db := r.mirror()
	defer r.dbMu.RUnlock()
	var st State
	seq, err := db.LastSeq(ctx)
	if err != nil {
		return st, err
	}
	st.Seq = seq
	get := func(key string) (string, error) {
		var v string
		err := db.QueryRow(ctx, "SELECT value FROM replica_state WHERE key = ?", key).Scan(&v)
		if errors.Is(err, sql.ErrNoRows) {
			return "", nil
		}
		if err != nil {
			return "", fmt.Errorf("replica: read %s: %w", key, err)
		}
		return v, nil
	}
	if st.Engine, err = get("engine"); err != nil {
		return st, err
	}
	if st.LastOp, err = get("last_op"); err != nil {
		return st, err
	}
	at, err := get("synced_at")
	if err != nil {
		return st, err
	}
	if at != "" {
		if st.SyncedAt, err = time.Parse(time.RFC3339Nano, at); err != nil {
			return st, fmt.Errorf("replica: bad synced_at %q: %w", at, err)
		}
	}
	return st, nil
}

// mirror returns the replica's mirror, read-locked: the caller calls
// r.dbMu.RUnlock when done with it.
func (r *Replica) mirror() *mirror.DB {
	r.dbMu.RLock()
	return r.db
}

// reset drops the replica (its mirror and its copies) and opens an empty
// one. The caller holds syncMu.
func (r *Replica) reset(ctx context.Context) error {
	r.dbMu.Lock()
	defer r.dbMu.Unlock()
	if r.db != nil {
		if err := r.db.Close(); err != nil {
			return fmt.Errorf("replica: %w", err)
		}
		r.db = nil
	}
	if err := removeDB(filepath.Join(r.dir, DBFile)); err != nil {
		return err
	}
	if err := r.copies.clear(); err != nil {
		return err
	}
	db, err := r.openDB(ctx)
	if err != nil {
		return err
	}
	r.db = db
	return nil
}

// Dir returns the replica's folder.
func (r *Replica) Dir() string { return r.dir }

// Copies returns the small copies' cache.
func (r *Replica) Copies() *Cache { return r.copies }

// Close closes the replica and lets another process open it.
func (r *Replica) Close() error {
	var errs []error
	r.dbMu.Lock()
	if r.db != nil {
		errs = append(errs, r.db.Close())
		r.db = nil
	}
	r.dbMu.Unlock()
	if r.lock != nil {
		errs = append(errs, r.lock.Release())
		r.lock = nil
	}
	return errors.Join(errs...)
}

// removeDB removes a SQLite file and its WAL files.
func removeDB(path string) error {
	for _, s := range []string{"", "-wal", "-shm"} {
		if err := os.Remove(path + s); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("replica: remove %s: %w", path+s, err)
		}
	}
	return nil
}

// takeLock holds the replica's folder (sqlitedb.LockFolder, as the
// outbox holds its own: the folder lock that names its holder, and the
// legacy DIR/lock of older Sparks) until it is released.
func takeLock(ctx context.Context, dir string) (*sqlitedb.FolderLock, error) {
	l, err := sqlitedb.LockFolder(ctx, dir, lockFile, "the replica")
	if errors.Is(err, dirlock.ErrHeld) || errors.Is(err, sqlitedb.ErrOlderSpark) {
		return nil, fmt.Errorf("%w: %w", ErrLocked, err)
	}
	if err != nil {
		return nil, fmt.Errorf("replica: %w", err)
	}
	return l, nil
}
