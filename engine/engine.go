package engine

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/auth"
	"github.com/sparkfamily/spark/engine/media"
	"github.com/sparkfamily/spark/engine/mirror"
	"github.com/sparkfamily/spark/engine/oplog"
	"github.com/sparkfamily/spark/engine/pippa"
	"github.com/sparkfamily/spark/engine/vfs"
	"github.com/sparkfamily/spark/internal/dirlock"
)

// Defaults of Config.
const (
	DefaultMaxMediaSize  = 256 << 20
	DefaultWorkers       = 2
	DefaultRetryAttempts = 5
	DefaultRetryBackoff  = time.Second
	maxRetryBackoff      = 30 * time.Second
)

// Files of the data directory.
const (
	LogFile    = "ops.log"
	MirrorFile = "mirror.db"
	MediaDir   = "media"
	TokensFile = "tokens.json"
	ConfigFile = "engine.json"
	// LockFile is the lock that keeps the data directory to one engine
	// (see package dirlock); it names the process holding it.
	LockFile = "engine.lock"
)

// catchUpBatch is how many ops one mirror transaction folds when the mirror
// catches up at Open or is rebuilt: large enough to amortize the commit,
// small enough to keep memory flat.
const catchUpBatch = 10000

// Config configures Open.
type Config struct {
	// Dir is the data directory (see the package doc); it is created if
	// needed.
	Dir string
	// MaxMediaSize is the largest upload in bytes; 0 is DefaultMaxMediaSize.
	MaxMediaSize int64
	// Seats are brain seats fixed by the caller. The seat of the
	// SPARK_BRAIN_* environment variables, if set, comes first, then these,
	// then the seats of DIR/engine.json (see SetSeats).
	Seats []pippa.Config
	// Workers is how many turns run at once; 0 is DefaultWorkers.
	Workers int
	// Logger receives the engine's logs; nil is slog.Default().
	Logger *slog.Logger
	// Now stamps the ops (and so every time a reader sees); nil is time.Now.
	Now func() time.Time
	// HTTPClient is the client the seats use; nil is a default client.
	HTTPClient *http.Client
	// RetryAttempts bounds how many times a seat is asked when it fails
	// transiently; 0 is DefaultRetryAttempts.
	RetryAttempts int
	// RetryBackoff bounds the wait after the first transient failure: the
	// wait is a random time below it (full jitter), and its bound doubles
	// after each failure, up to 30s; a seat's Retry-After is waited at
	// least. 0 is DefaultRetryBackoff.
	RetryBackoff time.Duration
	// OnBatch, if set, is told each log fsync batch's size and fsync time.
	OnBatch func(records int, fsync time.Duration)
	// OnTurn, if set, is told each turn's final status (finished or failed).
	OnTurn func(status string)
	// TurnBurst and TurnEvery bound the new readings each family member
	// starts (on all their device tokens; admin tokens are not limited):
	// TurnBurst at once, then one each TurnEvery (0: DefaultTurnBurst,
	// DefaultTurnEvery). TurnsPerDay is the most each member starts in a
	// day (UTC): 0 is DefaultTurnsPerDay, a negative value sets no daily
	// quota. See turnlimit.go.
	TurnBurst   int
	TurnEvery   time.Duration
	TurnsPerDay int
	// SearchBudget is how long one search may take (0:
	// mirror.DefaultSearchBudget).
	SearchBudget time.Duration
	// UploadSweepEvery is how often the running engine removes the
	// uploads with no progress for UploadMaxAge, and purges the moments
	// deleted longer ago than KeepDeleted (0: DefaultUploadSweepEvery;
	// uploadsweep.go).
	UploadSweepEvery time.Duration
	// KeepDeleted is how long a deleted moment waits in Recently deleted
	// before the engine removes it for good, with its photos (purge.go):
	// 0 is api.RecentlyDeletedFor (30 days), a negative value never.
	KeepDeleted time.Duration
	// FS is the file system the op log and the media store are written
	// through; nil is the operating system's. Tests run the engine on a
	// simulated disk that can lose power (engine/vfs/crashfs).
	FS vfs.FS
}

// Engine is an open engine. Its methods are safe for concurrent use.
type Engine struct {
	cfg    Config
	dir    string
	logger *slog.Logger

	// log is replaced when the engine recovers from a failed write
	// (health.go): read it through opLog, swap it under logMu.
	logMu  sync.RWMutex
	lock   *dirlock.Lock
	log    *oplog.Log
	mirror *mirror.DB
	media  *media.Store
	tokens *auth.Store

	keys keyLock

	ulidMu  sync.Mutex
	entropy *ulid.MonotonicEntropy

	// broken is set when folding into the mirror failed: the log then
	// refuses writes until it is reopened (health.go).
	broken atomic.Pointer[error]
	// folded is how far the mirror has folded the log (foldwait.go).
	folded foldMark
	// health is whether the engine takes writes (health.go).
	health writeHealth

	run *runner
	// turnLimit bounds the new readings each member starts (turnlimit.go).
	turnLimit *turnLimit

	// ident is the engine's id (identity.go).
	ident identity

	// uploads are the resumable uploads in progress (uploads.go).
	uploads uploadLocks
	// sweeper removes the uploads with no progress (uploadsweep.go).
	sweeper *uploadSweeper
}

// Open opens (or creates) the engine's data directory, catches the mirror up
// with the log, and starts the turn workers, which ask again every turn left
// unfinished. The directory is locked until Close: another engine (another
// serve, the desktop app's own, a rebuild) on it is refused with an error
// that names the process holding it (errors.Is(err, dirlock.ErrHeld)).
func Open(ctx context.Context, cfg Config) (*Engine, error) {
	if cfg.Dir == "" {
		return nil, errors.New("engine: no data directory given")
	}
	if cfg.MaxMediaSize <= 0 {
		cfg.MaxMediaSize = DefaultMaxMediaSize
	}
	if cfg.Workers <= 0 {
		cfg.Workers = DefaultWorkers
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	// No line the engine logs shows a URL's password or query.
	cfg.Logger = slog.New(pippa.RedactHandler(cfg.Logger.Handler()))
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{}
	}
	if cfg.RetryAttempts <= 0 {
		cfg.RetryAttempts = DefaultRetryAttempts
	}
	if cfg.RetryBackoff <= 0 {
		cfg.RetryBackoff = DefaultRetryBackoff
	}
	cfg.FS = vfs.Default(cfg.FS)
	if err := vfs.MkdirAll(cfg.FS, cfg.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("engine: create data directory: %w", err)
	}
	warnOpenFolder(cfg.Dir, cfg.Logger)
	e := &Engine{
		cfg:     cfg,
		dir:     cfg.Dir,
		logger:  cfg.Logger,
		entropy: ulid.Monotonic(rand.Reader, 0),
	}
	var err error
	if e.lock, err = LockDir(cfg.Dir, "running the engine"); err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			e.closeStores()
		}
	}()
	if err := ownerOnly(e.dir); err != nil {
		return nil, err
	}

	if e.mirror, err = mirror.Open(ctx, filepath.Join(e.dir, MirrorFile), mirror.Options{IDIndex: true, SearchBudget: cfg.SearchBudget,
		Members: logMembers(filepath.Join(e.dir, LogFile), cfg.FS)}); err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	// A read that waits for the fold asks the log's folder for it now.
	e.mirror.WhenBehind(func() { e.opLog().FoldNow() })
	if e.log, err = e.openLog(ctx); err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	if err := e.catchUp(ctx, e.log); err != nil {
		return nil, err
	}
	if e.media, err = media.OpenWith(filepath.Join(e.dir, MediaDir), media.Options{Logger: e.logger, FS: cfg.FS}); err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	e.sweepUploads(ctx) // uploads with no progress for 24 hours (uploadsweep.go)
	if e.tokens, err = auth.Open(filepath.Join(e.dir, TokensFile)); err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	e.sweepTemps() // of engine-id.json, engine.json and tokens.json (sweep.go)
	fileSeats, err := readSeatsFile(filepath.Join(e.dir, ConfigFile))
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	e.turnLimit = newTurnLimit(cfg.TurnBurst, cfg.TurnEvery, cfg.TurnsPerDay, cfg.Now)
	e.run = newRunner(e)
	e.run.setSeats(e.effectiveSeats(fileSeats), fileSeats)
	open, err := e.mirror.OpenTurns(ctx)
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	if len(open) > 0 {
		e.logger.Info("engine: asking again the turns left unfinished", "turns", len(open))
	}
	e.run.enqueue(open...)
	e.run.start(cfg.Workers)
	// What is due since the engine last ran, and the removals a crash cut
	// short, before the engine answers anyone (purge.go).
	e.purgeLogged(ctx)
	e.startUploadSweep()
	ok = true
	return e, nil
}

// openLog opens the log of the data directory, as Open does and as
// recovering from a failed write does again.
func (e *Engine) openLog(ctx context.Context) (*oplog.Log, error) {
	// Any op up to the mirror's last seq may have been answered (the fold
	// commits only after the log's fsync): recovery must never cut one of
	// them. A create answered at its fsync may lie past it, in a batch the
	// fold had not reached; that batch was fsync'ed whole before anyone
	// was answered, so no write cut short can hold it.
	folded, err := e.mirror.LastSeq(ctx)
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	return oplog.Open(filepath.Join(e.dir, LogFile), oplog.Options{
		Logger:      e.logger,
		Stage:       e.stage,
		Durable:     e.mirror.Published,
		OnBatch:     e.cfg.OnBatch,
		Now:         e.cfg.Now,
		FS:          e.cfg.FS,
		KeepThrough: folded,
	})
}

// catchUp folds into the mirror the ops log l holds past the mirror's last
// seq, in bounded batches.
func (e *Engine) catchUp(ctx context.Context, l *oplog.Log) error {
	have, err := e.mirror.LastSeq(ctx)
	if err != nil {
		return fmt.Errorf("engine: %w", err)
	}
	last := l.LastSeq()
	if have > last {
		return fmt.Errorf("engine: the mirror %s has folded ops up to seq %d but the log %s ends at seq %d: ops that were answered are missing from the log, which was cut or replaced by an older copy: restore the log from a backup, the newest you have (%s.cut-* files beside it hold what was cut, if anything was); only if ops %d to %d are truly gone, rebuild the mirror from the log as it is with `spark-engine rebuild --data %s`, which forgets them for good",
			e.mirror.Path(), have, l.Path(), last, LogFile, last+1, have, e.dir)
	}
	if have == last {
		e.folded.set(last)
		return nil
	}
	e.logger.Info("engine: catching the mirror up with the log", "from", have, "to", last)
	if err := foldLog(ctx, l, e.mirror, have, 0); err != nil {
		return fmt.Errorf("engine: catch the mirror up: %w", err)
	}
	e.folded.set(last)
	return nil
}

// foldLog folds the log's records after seq after, up to seq upTo (0: to
// the end), into m in batches of catchUpBatch. Opening the engine uses it to
// catch the mirror up; rebuild and fsck use it to fold a fresh mirror.
func foldLog(ctx context.Context, l *oplog.Log, m *mirror.DB, after, upTo uint64) error {
	batch := make([]oplog.Record, 0, catchUpBatch)
	errStop := errors.New("stop")
	err := l.Scan(ctx, after, func(r oplog.Record) error {
		if upTo != 0 && r.Seq > upTo {
			return errStop
		}
		batch = append(batch, r)
		if len(batch) == catchUpBatch {
			if err := m.Apply(ctx, batch); err != nil {
				return err
			}
			clear(batch)
			batch = batch[:0]
		}
		return nil
	})
	if err != nil && !errors.Is(err, errStop) {
		return err
	}
	return m.Apply(ctx, batch)
}

// stage is the log's Options.Stage: it folds each batch into the mirror
// while the log fsyncs it, and the fold becomes visible (Commit) after the
// fsync and before the writers are answered, so a writer's next read sees
// its own write.
func (e *Engine) stage(batch []oplog.Record) (oplog.Staged, error) {
	s, err := e.mirror.Stage(context.Background(), batch)
	if err != nil {
		return nil, e.foldFailed(err)
	}
	return stagedFold{e: e, s: s, last: batch[len(batch)-1].Seq}, nil
}

// stagedFold is a staged mirror fold whose failure to commit breaks the
// engine, as a failed fold does.
type stagedFold struct {
	e    *Engine
	s    *mirror.Staged
	last uint64 // the batch's last seq
}

func (f stagedFold) Commit() error {
	if err := f.s.Commit(); err != nil {
		return f.e.foldFailed(err)
	}
	f.e.folded.set(f.last)
	return nil
}

func (f stagedFold) Abort() { f.s.Abort() }

// foldFailed marks the engine broken after a failed fold: the log refuses
// writes from then on, until the engine reopens it and the mirror folds the
// missing ops from it (health.go), or a restart does.
//
// The engine turns unhealthy at once, not at the next write: a fold of
// creates answered at their fsync fails with no writer waiting, and until
// the mirror holds them health must say so, writes are refused and so are
// the reads that must see them (awaitFold).
func (e *Engine) foldFailed(err error) error {
	err = fmt.Errorf("%w; the mirror folds the missing ops from the log once it can be written", err)
	e.broken.Store(&err)
	// The failure is recorded before the waiters wake: Health, woken here,
	// reads it at once, and must not answer ok in between.
	e.writeFailed(e.opLog(), err)
	e.folded.wake()
	return err
}

// appendOps writes records to the log; it returns once they are fsync'ed and
// folded into the mirror.
func (e *Engine) appendOps(ctx context.Context, recs ...oplog.Record) error {
	_, err := e.appendRecords(ctx, recs...)
	return err
}

// appendRecords is appendOps returning the records as logged (with Seq and
// At).
func (e *Engine) appendRecords(ctx context.Context, recs ...oplog.Record) ([]oplog.Record, error) {
	if err := e.writable(); err != nil {
		return nil, err
	}
	authored(ctx, recs)
	l := e.opLog()
	out, err := l.Append(ctx, recs...)
	if err != nil {
		return nil, e.appendFailed(ctx, l, recs[0].Op, err)
	}
	return out, nil
}

// appendCreate writes a moment.create whose ids the caller has checked
// free, holding their keys: it is answered once the op is durable in the
// log, and the mirror folds it behind the log (oplog.Log.AppendDurable),
// a lone create as well as many at once. The id index learns of the
// create's ids first, so that a repeat finds them, and every read of the
// mirror waits for the fold to reach the seq answered (mirror.DB.Published
// and awaitFold), so that no reader, the writer included, sees the mirror
// from before it. A crash before the fold loses nothing: Open folds from
// the log what the mirror misses. A fold that fails after the answer
// loses nothing either: the engine turns unhealthy at once (foldFailed),
// refuses writes and the reads that must see the op with 503, and folds
// it from the log once the mirror can be written again (health.go).
func (e *Engine) appendCreate(ctx context.Context, momentID string, rec oplog.Record) ([]oplog.Record, error) {
	if err := e.writable(); err != nil {
		return nil, err
	}
	actorOf(ctx).sign(&rec)
	e.mirror.Reserve(rec.RequestID, momentID)
	l := e.opLog()
	out, err := l.AppendDurable(ctx, rec)
	if err != nil {
		return nil, e.appendFailed(ctx, l, rec.Op, err)
	}
	return out, nil
}

// authored names, in each of recs, the token whose request writes them
// and its member (none for the engine's own writes).
func authored(ctx context.Context, recs []oplog.Record) {
	a := actorOf(ctx)
	for i := range recs {
		a.sign(&recs[i])
	}
}

// record makes a log record of op with data as its JSON.
func record(op, requestID string, data any) (oplog.Record, error) {
	b, err := json.Marshal(data)
	if err != nil {
		return oplog.Record{}, fmt.Errorf("engine: encode %s: %w", op, err)
	}
	return oplog.Record{Op: op, RequestID: requestID, Data: b}, nil
}

// newID mints a ULID for an id the caller did not send.
func (e *Engine) newID() string {
	e.ulidMu.Lock()
	defer e.ulidMu.Unlock()
	return ulid.MustNew(ulid.Timestamp(e.cfg.Now()), e.entropy).String()
}

// Tokens returns the bearer token store (DIR/tokens.json).
func (e *Engine) Tokens() *auth.Store { return e.tokens }

// Dir returns the data directory.
func (e *Engine) Dir() string { return e.dir }

// Close stops the turn workers (turns in flight are left unfinished, to be
// asked again at the next Open) and the sweeping of uploads, then syncs
// and closes the log and closes the mirror.
func (e *Engine) Close() error {
	e.stopProbe()
	e.stopUploadSweep()
	if e.run != nil {
		e.run.stop()
	}
	return e.closeStores()
}

func (e *Engine) closeStores() error {
	var errs []error
	if e.log != nil {
		errs = append(errs, e.log.Close())
	}
	if e.mirror != nil {
		errs = append(errs, e.mirror.Close())
	}
	// Last, once nothing of the directory is open any more.
	errs = append(errs, e.lock.Release())
	return errors.Join(errs...)
}

// LockDir takes the data directory's lock (LockFile) for purpose, as Open
// and Rebuild do, or says who holds it (errors.Is(err, dirlock.ErrHeld)).
// Only what writes the log or the mirror takes it: the token commands take
// tokens.lock instead (they work beside a live serve), and what only reads
// the directory (fsck, push reading its source) takes no lock and works
// beside the live engine.
func LockDir(dir, purpose string) (*dirlock.Lock, error) {
	l, err := dirlock.TryLock(dir, LockFile, purpose)
	if errors.Is(err, dirlock.ErrHeld) {
		return nil, fmt.Errorf("%w; only one engine at a time may use a data folder (two would both answer writes and damage its log): stop that one first, or use another data folder", err)
	}
	if err != nil {
		return nil, fmt.Errorf("engine: lock the data folder: %w", err)
	}
	return l, nil
}

// notFound is the contract's 404 for an id the engine does not know.
func notFound(what, id string) error {
	return api.Errorf(api.CodeNotFound, "no %s has the id %s", what, id)
}

// isNotFound reports a mirror miss.
func isNotFound(err error) bool { return errors.Is(err, mirror.ErrNotFound) }

var _ io.Closer = (*Engine)(nil)
