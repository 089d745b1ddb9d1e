// Package app holds the Spark desktop app's bound methods: what the
// TypeScript UI calls through Wails. Each bound struct covers one area
// (Capture, Moments, Phrases, Outbox, Settings, Sync) and each method is a
// few lines over the outbox and an engine client, returning (T, error); the
// error reaches the UI as {code, message} through FormatError.
//
// What the methods read, the engine chosen with its client, the family
// engine's replica, the prefs and the outbox, is one immutable state that
// a switch of engine replaces whole (state.go): a call loads it once and
// never sees half of a switch, and the switch tells the window to read
// every screen again (EventEngine).
//
// App owns the lifetime: Startup opens the data folder, starts the
// embedded engine on 127.0.0.1 (or points at a family engine), opens the
// outbox and starts its drain; Shutdown stops the drain between steps and
// closes the engine so its log is synced. main.go only wires App into
// Wails; the end-to-end harness wires the very same App into a browser.
package app

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sparkfamily/spark/engine/client"
	"github.com/sparkfamily/spark/engine/pippa"
	"github.com/sparkfamily/spark/internal/atomicfile"
	"github.com/sparkfamily/spark/internal/dirlock"
	"github.com/sparkfamily/spark/internal/version"
	"github.com/sparkfamily/spark/outbox"
)

// outboxOptions are the outbox's options but its logger: the outbox's own
// defaults (a back-off of 1 s doubling up to 5 min). A variable for the
// tests.
var outboxOptions outbox.Options

// Options configure New.
type Options struct {
	// DataDir is Spark's data folder; "" is datadir.Default (paths.go).
	DataDir string
	// Logger, if set, receives the app's log as well as DATA/logs/spark.log.
	Logger *slog.Logger
	// HTTPClient talks to the engine; nil is defaultHTTPClient().
	HTTPClient *http.Client
}

// App is the desktop app. Its exported fields are the bound structs.
//
// What the bound methods read (the engine chosen, its client, the replica,
// the prefs, the outbox) is one immutable state in cur, replaced whole by
// change (state.go). The other fields are set by New and never change, or
// are safe for concurrent use by themselves.
type App struct {
	Capture  *Capture
	Moments  *Moments
	Phrases  *Phrases
	Outbox   *Outbox
	Settings *Settings
	Sync     *Sync

	opts  Options
	hc    *http.Client
	log   *slog.Logger // writes where logTo says
	logTo logSwitch

	cur atomic.Pointer[state]
	// switchMu makes the changes of cur one at a time (change), and guards
	// life: what Startup starts and Shutdown stops.
	switchMu sync.Mutex
	life     lifetime

	progress progressTable
	watch    watcher  // sends "moment" events as the engine's log grows
	loop     syncLoop // syncs the family engine's replica (sync.go)
	shown    shown    // the small copies pinned while the window shows them (onscreen.go)
	paint    firstPaint
	failing  failingSpell // since when the off-site copy fails (Status)
	moving   move         // bringing moments along to another engine (move.go)
}

// lifetime is what Startup starts and Shutdown stops, under App.switchMu.
type lifetime struct {
	logFile *os.File
	stop    context.CancelFunc
	drained chan struct{} // closed when the drain has returned
	events  func()        // stops forwarding outbox events
}

// New makes an App; nothing starts until Startup.
func New(opts Options) *App {
	a := &App{opts: opts, hc: opts.HTTPClient, paint: firstPaint{made: time.Now()}, loop: newSyncLoop()}
	if a.hc == nil {
		a.hc = defaultHTTPClient()
	}
	a.logTo = newLogSwitch(a.earlyLog())
	a.log = slog.New(a.logTo)
	a.cur.Store(&state{})
	a.Capture = &Capture{a}
	a.Moments = &Moments{a}
	a.Phrases = &Phrases{a}
	a.Outbox = &Outbox{a}
	a.Settings = &Settings{a}
	a.Sync = &Sync{a}
	return a
}

// earlyLog is where the log goes before the data folder is open and after
// Shutdown: Options.Logger, if set.
func (a *App) earlyLog() slog.Handler {
	if a.opts.Logger != nil {
		return a.opts.Logger.Handler()
	}
	return slog.DiscardHandler
}

// LocalEngine is the engine on this computer while Spark uses it, nil
// otherwise. The UI does not reach it (it is not bound); the e2e harness
// does, to take its Pippa away as a fresh install has none.
func (a *App) LocalEngine() *LocalEngine { return a.state().local }

// Bind lists the structs whose methods the UI calls.
func (a *App) Bind() []any {
	return []any{a.Capture, a.Moments, a.Phrases, a.Outbox, a.Settings, a.Sync}
}

// Startup opens the data folder, the engine and the outbox and starts the
// drain. A failure does not stop the window: Status then carries a message
// saying what to do, which the UI shows.
func (a *App) Startup(ctx context.Context, shell Shell) {
	s, _ := a.change(func(cur *state) (*state, error) {
		next := &state{shell: shell}
		if err := a.start(ctx, next); err != nil {
			next.problem = toUIError(err)
			a.log.Error("Spark could not start", "err", err)
		}
		return next, nil
	})
	if s.problem != nil {
		return
	}
	a.watch.start(a)
	a.startSync(s.ob)
}

// start fills in s: the data folder, the log, the prefs, the outbox and
// the engine, and starts the drain. On an error, s holds what was opened.
func (a *App) start(ctx context.Context, s *state) error {
	dir := a.opts.DataDir
	if dir == "" {
		d, err := defaultDataDir(a.log)
		if err != nil {
			return err
		}
		dir = d
	}
	s.dataDir = dir
	if err := os.MkdirAll(filepath.Join(dir, "logs"), 0o700); err != nil {
		return &UIError{Code: CodeNoDataFolder, Name: dir, Detail: err.Error()}
	}
	if err := a.openLog(dir); err != nil {
		return err
	}
	a.log.Info("Spark starting", "version", version.Version, "data", dir)
	p, err := loadPrefs(dir)
	if err != nil {
		return &UIError{Code: CodeBadSettings, Name: filepath.Join(dir, settingsFile), Detail: err.Error()}
	}
	s.prefs = p

	obOpts := outboxOptions
	obOpts.Logger = a.log.With("part", "outbox")
	ob, err := outbox.Open(ctx, filepath.Join(dir, "outbox"), obOpts)
	if err != nil {
		return outboxProblem(filepath.Join(dir, "outbox"), err)
	}
	s.ob = ob
	// Under the outbox's lock no other Spark uses this folder, and this
	// one writes settings.json and engine-address only once started: a
	// temp file of theirs now is a write a kill cut short. The tiles kept
	// are this Spark's alone too; without them, tiles are made each time
	// they are shown.
	for _, name := range []string{settingsFile, engineAddressFile} {
		if err := atomicfile.SweepTemps(filepath.Join(dir, name)); err != nil {
			a.log.Warn("could not remove the temp files of a write cut short", "err", err)
		}
	}
	if tc, err := openTileCache(filepath.Join(dir, TilesDir), tileCacheLimit, a.log.With("part", "tiles")); err != nil {
		a.log.Warn("tiles will not be kept", "err", err)
	} else {
		s.tiles = tc
	}

	next, err := a.connect(ctx, s, s.prefs, false)
	if err != nil {
		return err
	}
	*s = *next
	s.ob.SetTarget(s.target) // before the drain starts
	a.startDrain(s.ob)
	return nil
}

// outboxProblem is a failure to open the outbox in dir. The outbox holds
// photos that may exist nowhere else, so Spark never wipes it: the window
// says where it is and what to do.
func outboxProblem(dir string, err error) error {
	return &UIError{Code: CodeOutboxUnopened, Name: dir, Detail: err.Error()}
}

// engineProblem is a failure to start the embedded engine in dir. The
// commonest: another program (a second Spark, a spark-engine serve) holds
// the folder, and only one may use it at a time; Detail then names it.
func engineProblem(dir string, err error) error {
	var held *dirlock.HeldError
	if errors.As(err, &held) {
		who := ""
		if held.Holder != nil {
			who = held.Holder.String()
		}
		return &UIError{Code: CodeEngineInUse, Name: dir, Detail: who}
	}
	return &UIError{Code: CodeEngineFailed, Name: dir, Detail: err.Error()}
}

func (a *App) openLog(dir string) error {
	p := filepath.Join(dir, "logs", "spark.log")
	f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return &UIError{Code: CodeNoLog, Name: p, Detail: err.Error()}
	}
	a.life.logFile = f
	var h slog.Handler = slog.NewTextHandler(f, &slog.HandlerOptions{Level: slog.LevelInfo})
	if a.opts.Logger != nil {
		h = slog.NewMultiHandler(h, a.opts.Logger.Handler())
	}
	// A family engine's address may carry a password, a seat's a key: the
	// app's log shows neither.
	a.logTo.set(pippa.RedactHandler(h))
	return nil
}

// engineAddressFile, in the data folder, holds the URL of the embedded
// engine while Spark runs it.
const engineAddressFile = "engine-address"

// connect makes, from cur, the state that uses the engine p chooses: it
// starts the embedded engine (unless cur has it running) or points at the
// family engine and opens its replica. switched is false at Startup. It
// runs inside change, which publishes the state and stops the engine cur
// used when the new one does not; on an error it leaves nothing started.
func (a *App) connect(ctx context.Context, cur *state, p prefs, switched bool) (*state, error) {
	next := *cur
	next.prefs, next.sync, next.local = p, nil, nil
	if p.Engine == EngineRemote {
		next.cl = client.New(p.RemoteURL, p.RemoteToken, a.hc)
		next.target = outbox.Target{URL: p.RemoteURL, Token: p.RemoteToken}
		next.rep, next.sync = a.openReplica(ctx, cur.rep, next.dataDir, p.CacheBytes, switched)
		a.log.Info("using the family engine", "url", p.RemoteURL)
		return &next, nil
	}
	le := cur.local
	if le == nil {
		var err error
		le, err = StartLocalEngine(ctx, LocalConfig{
			Dir:    filepath.Join(next.dataDir, "engine"),
			Addr:   "127.0.0.1:0",
			Token:  p.LocalToken,
			Pippa:  p.Pippa,
			Backup: a.offsiteTarget(ctx, Offsite(p.Offsite)),
			Logger: a.log.With("part", "engine"),
		})
		if err != nil {
			return nil, engineProblem(filepath.Join(next.dataDir, "engine"), err)
		}
		fail := func(err error) (*state, error) {
			if cerr := le.Close(); cerr != nil {
				a.log.Error("close the engine", "err", cerr)
			}
			return nil, err
		}
		if le.Token != p.LocalToken {
			next.prefs.LocalToken = le.Token
			if err := savePrefs(next.dataDir, next.prefs); err != nil {
				return fail(err)
			}
		}
		if err := atomicfile.WriteFile(filepath.Join(next.dataDir, engineAddressFile), []byte(le.URL+"\n"), 0o600); err != nil {
			return fail(err)
		}
	}
	next.local = le
	next.cl = client.New(le.URL, le.Token, a.hc)
	next.target = outbox.Target{URL: le.URL, Token: le.Token}
	a.log.Info("using the engine on this computer", "url", le.URL)
	return &next, nil
}

// stopLocal closes the embedded engine s used. Only change and Shutdown
// call it, once s is no longer the current state.
func (a *App) stopLocal(s *state) {
	if err := s.local.Close(); err != nil {
		a.log.Error("close the engine", "err", err)
	}
	_ = os.Remove(filepath.Join(s.dataDir, engineAddressFile))
}

// startDrain runs the outbox's drain and forwards its events to the UI.
// Startup calls it, under switchMu.
func (a *App) startDrain(ob *outbox.Outbox) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	a.life.stop, a.life.drained = cancel, done
	go func() {
		defer close(done)
		if err := ob.Run(ctx); err != nil && !errors.Is(err, context.Canceled) {
			a.log.Error("the drain stopped", "err", err)
		}
	}()
	a.life.events = a.forwardEvents(ob)
}

// Shutdown stops the drain between steps, closes the outbox and the engine
// (its log synced). Wails calls it when the window closes.
func (a *App) Shutdown() {
	a.watch.stopWatch()
	a.stopSync()
	a.switchMu.Lock()
	defer a.switchMu.Unlock()
	if a.life.stop != nil {
		a.life.stop()
		<-a.life.drained
		a.life.stop = nil
	}
	if a.life.events != nil {
		a.life.events()
		a.life.events = nil
	}
	// From now on every call finds Spark not ready.
	s := a.cur.Load()
	a.cur.Store(&state{shell: s.shell, dataDir: s.dataDir})
	if s.ob != nil {
		if err := s.ob.Close(); err != nil {
			a.log.Error("close the outbox", "err", err)
		}
	}
	if s.local != nil {
		a.stopLocal(s)
	}
	if s.rep != nil {
		if err := s.rep.Close(); err != nil {
			a.log.Error("close the replica", "err", err)
		}
	}
	a.log.Info("Spark stopped")
	a.logTo.set(a.earlyLog())
	if a.life.logFile != nil {
		a.life.logFile.Close()
		a.life.logFile = nil
	}
}

func (a *App) emit(event string, data any) {
	if sh := a.state().shell; sh != nil {
		sh.Emit(event, data)
	}
}

// defaultHTTPClient waits less than the outbox's (10 s to connect, 30 s
// for an answer's headers), so a hung engine fails a call instead of
// freezing the UI; it sets no overall limit, since an original shown in the
// moment dialog may take long to stream from a distant family engine.
func defaultHTTPClient() *http.Client {
	return client.NewHTTPClient(client.HTTPOptions{DialTimeout: 10 * time.Second, HeaderTimeout: 30 * time.Second})
}

func baseName(p string) string { return filepath.Base(p) }
