package outbox

import (
	"context"
	"database/sql"
	_ "embed"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"time"

	_ "modernc.org/sqlite" // the "sqlite" driver, pure Go

	"github.com/sparkfamily/spark/internal/dirlock"
	"github.com/sparkfamily/spark/internal/sqlitedb"
)

// Errors returned by the outbox.
var (
	// ErrLocked is returned by Open when another process holds the outbox.
	ErrLocked = errors.New("outbox: in use by another Spark process (the app or a running spark command); close it and try again")
	// ErrNotFound is returned for an entry id the outbox does not hold.
	ErrNotFound = errors.New("outbox: no such entry")
	// ErrClosed is returned after Close.
	ErrClosed = errors.New("outbox: closed")
	// ErrDiskFull wraps a capture that ran out of disk space.
	ErrDiskFull = errors.New("outbox: disk full")
	// ErrNoTarget is returned by the drain when no engine is set.
	ErrNoTarget = errors.New("outbox: no engine set; give an engine URL and token")
	// ErrRunning is returned by Run when the drain is already running.
	ErrRunning = errors.New("outbox: the drain is already running")
	// ErrNoOriginal is returned by ExportOriginal (and so by Discard with
	// an export folder) once an entry's original has left the outbox: it
	// was delivered, and the engine holds it.
	ErrNoOriginal = errors.New("outbox: the original is no longer in the outbox")
)

// Options tune an Outbox. The zero value is usable.
type Options struct {
	Logger *slog.Logger

	// KeepFiles keeps an entry's files after it is delivered.
	KeepFiles bool

	// Workers is how many captures run at once (default 2).
	Workers int
	// Concurrency is how many entries the drain delivers at once (default 3).
	Concurrency int

	// BackoffBase and BackoffCap bound the wait after passing trouble
	// (default 1s and 5m): after the n-th failure in a row the entry waits
	// a random time in [0, min(cap, base*2^(n-1))) (retry.Backoff), and
	// never less than the engine's Retry-After.
	BackoffBase time.Duration
	BackoffCap  time.Duration

	// HTTPClient is used to talk to engines; nil means a client with
	// sensible dial and header time-outs.
	HTTPClient *http.Client

	// Target is the engine to deliver to at first; see SetTarget.
	Target Target

	// Now is the clock (default time.Now); Rand returns a float in [0,1)
	// for back-off jitter (default math/rand/v2). Tests set both.
	Now  func() time.Time
	Rand func() float64
}

// Outbox is an open outbox. Its methods are safe for concurrent use.
type Outbox struct {
	dir  string
	db   *sql.DB
	lock *sqlitedb.FolderLock
	opts Options
	log  *slog.Logger

	// create makes a file for writing; tests replace it to inject faults.
	create func(name string) (writeFile, error)

	events events
	drain  drainState
	rm     removals

	closeOnce sync.Once
	closed    chan struct{}
}

//go:embed schema.sql
var schema string

// Open opens (creating if needed) the outbox in dir. It takes the outbox's
// lock, so a second process gets ErrLocked, and removes stray files left by
// an interrupted capture or removal.
func Open(ctx context.Context, dir string, opts Options) (*Outbox, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Workers <= 0 {
		opts.Workers = 2
	}
	if opts.Concurrency <= 0 {
		opts.Concurrency = 3
	}
	if opts.BackoffBase <= 0 {
		opts.BackoffBase = time.Second
	}
	if opts.BackoffCap <= 0 {
		opts.BackoffCap = 5 * time.Minute
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Rand == nil {
		opts.Rand = defaultRand
	}
	if opts.HTTPClient == nil {
		opts.HTTPClient = defaultHTTPClient()
	}
	for _, d := range []string{dir, filepath.Join(dir, "files"), filepath.Join(dir, "staging")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, fmt.Errorf("open outbox: %w", err)
		}
	}
	lock, err := takeLock(ctx, dir)
	if err != nil {
		return nil, err
	}
	db, err := openDB(ctx, filepath.Join(dir, "outbox.db"))
	if err != nil {
		lock.Release()
		return nil, err
	}
	o := &Outbox{
		dir:    dir,
		db:     db,
		lock:   lock,
		opts:   opts,
		log:    opts.Logger,
		create: createFile,
		closed: make(chan struct{}),
	}
	o.drain.init()
	if err := o.cleanup(ctx); err != nil {
		o.Close()
		return nil, err
	}
	if opts.Target.URL != "" {
		o.SetTarget(opts.Target)
	}
	return o, nil
}

// Dir returns the outbox's directory.
func (o *Outbox) Dir() string { return o.dir }

// Close stops accepting work and closes the database. A running drain
// should be stopped (its context cancelled) first.
func (o *Outbox) Close() error {
	var err error
	o.closeOnce.Do(func() {
		close(o.closed)
		o.events.closeAll()
		err = o.db.Close()
		if lerr := o.lock.Release(); err == nil {
			err = lerr
		}
	})
	return err
}

func openDB(ctx context.Context, path string) (*sql.DB, error) {
	// FULL sync: a capture reported safe must survive a power cut, not only
	// a crash of the process.
	dsn := sqlitedb.DSN(path, url.Values{"_txlock": {"immediate"},
		"_pragma": {"busy_timeout(10000)", "journal_mode(WAL)", "synchronous(FULL)", "foreign_keys(1)"}})
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open outbox database %s: %w", path, err)
	}
	// One connection: the process's writers queue in Go instead of SQLite's
	// busy handler, which sleeps in steps of many milliseconds.
	db.SetMaxOpenConns(1)
	if err := migrate(ctx, db); err != nil {
		db.Close()
		return nil, fmt.Errorf("open outbox database %s: %w", path, diskFull(err, 0))
	}
	return db, nil
}

// LockFile is the outbox's folder lock (dirlock), which names the process
// holding it; the legacy DIR/lock is held beside it (sqlitedb.LockFolder)
// so that a Spark from before the one queue and this one never both open
// the folder.
const LockFile = "outbox.lock"

// takeLock holds the outbox's folder for as long as the outbox is open.
func takeLock(ctx context.Context, dir string) (*sqlitedb.FolderLock, error) {
	l, err := sqlitedb.LockFolder(ctx, dir, LockFile, "the outbox")
	if errors.Is(err, dirlock.ErrHeld) || errors.Is(err, sqlitedb.ErrOlderSpark) {
		return nil, fmt.Errorf("%w: %w", ErrLocked, err)
	}
	if err != nil {
		return nil, fmt.Errorf("outbox: %w", err)
	}
	return l, nil
}

// entryDir is where an entry's files live once captured.
func (o *Outbox) entryDir(id string) string { return filepath.Join(o.dir, "files", id) }
