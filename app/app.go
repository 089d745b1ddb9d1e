// Package app holds the Spark desktop app's bound methods: what the
// TypeScript UI calls through Wails. Each bound struct covers one area
// (Capture, Moments, Phrases, Outbox, Settings) and each method is a few
// lines over the outbox and an engine client, returning (T, error); the
// error reaches the UI as {code, message} through FormatError.
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
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/sparkfamily/spark/atomicfile"
	"github.com/sparkfamily/spark/client"
	"github.com/sparkfamily/spark/dirlock"
	"github.com/sparkfamily/spark/engine/pippa"
	"github.com/sparkfamily/spark/outbox"
	"github.com/sparkfamily/spark/version"
)

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
type App struct {
	Capture  *Capture
	Moments  *Moments
	Phrases  *Phrases
	Outbox   *Outbox
	Settings *Settings
	Sync     *Sync

	opts Options
	hc   *http.Client

	mu      sync.Mutex
	log     *slog.Logger
	logFile *os.File
	shell   Shell
	dataDir string
	prefs   prefs
	problem string         // why Spark could not start, in words
	local   *LocalEngine   // the embedded engine, when it runs
	cl      *client.Client // the current engine
	ob      *outbox.Outbox // nil until opened
	stop    context.CancelFunc
	drained chan struct{} // closed when the drain has returned
	events  func()        // stops forwarding outbox events

	progress progressTable
	watch    watcher // sends "moment" events as the engine's log grows
	repl     syncer  // the family engine's replica and its sync (sync.go)
	shown    shown   // the small copies pinned while the window shows them (onscreen.go)
	paint    firstPaint
}

// New makes an App; nothing starts until Startup.
func New(opts Options) *App {
	a := &App{opts: opts, hc: opts.HTTPClient, log: slog.New(slog.DiscardHandler), paint: firstPaint{made: time.Now()}}
	if a.hc == nil {
		a.hc = defaultHTTPClient()
	}
	if opts.Logger != nil {
		a.log = opts.Logger
	}
	a.Capture = &Capture{a}
	a.Moments = &Moments{a}
	a.Phrases = &Phrases{a}
	a.Outbox = &Outbox{a}
	a.Settings = &Settings{a}
	a.Sync = &Sync{a}
	return a
}

// Bind lists the structs whose methods the UI calls.
func (a *App) Bind() []any {
	return []any{a.Capture, a.Moments, a.Phrases, a.Outbox, a.Settings, a.Sync}
}

// Startup opens the data folder, the engine and the outbox and starts the
// drain. A failure does not stop the window: Status then carries a message
// saying what to do, which the UI shows.
func (a *App) Startup(ctx context.Context, shell Shell) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.shell = shell
	if err := a.start(ctx); err != nil {
		a.problem = err.Error()
		a.log.Error("Spark could not start", "err", err)
		return
	}
	a.watch.start(a)
	a.startSync()
}

func (a *App) start(ctx context.Context) error {
	dir := a.opts.DataDir
	if dir == "" {
		d, err := defaultDataDir(a.log)
		if err != nil {
			return err
		}
		dir = d
	}
	a.dataDir = dir
	if err := os.MkdirAll(filepath.Join(dir, "logs"), 0o700); err != nil {
		return fmt.Errorf("Spark can't create its data folder %s (%v). Check that the disk is not full and that you may write there.", dir, err)
	}
	if err := a.openLog(); err != nil {
		return err
	}
	a.log.Info("Spark starting", "version", version.Version, "data", dir)
	p, err := loadPrefs(dir)
	if err != nil {
		return err
	}
	a.prefs = p

	ob, err := outbox.Open(ctx, filepath.Join(dir, "outbox"), outbox.Options{Logger: a.log.With("part", "outbox")})
	if err != nil {
		return outboxProblem(filepath.Join(dir, "outbox"), err)
	}
	a.ob = ob

	if err := a.connect(ctx); err != nil {
		return err
	}
	a.startDrain()
	return nil
}

// outboxProblem words a failure to open the outbox. The outbox holds
// photos that may exist nowhere else, so Spark never wipes it: it says
// where it is and what to do.
func outboxProblem(dir string, err error) error {
	return fmt.Errorf("Spark can't open its outbox at %s: %v. Your photos in it are kept as they are; Spark will not change or delete them. "+
		"Quit Spark, copy that folder somewhere safe (it holds photos not yet sent), and ask for help: the outbox can be repaired or its photos imported again from the copy.", dir, err)
}

// engineProblem words a failure to start the embedded engine in dir. The
// commonest: another program (a second Spark, a spark-engine serve) holds
// the folder, and only one may use it at a time.
func engineProblem(dir string, err error) error {
	var held *dirlock.HeldError
	if errors.As(err, &held) {
		who := "another program"
		if held.Holder != nil {
			who = "another program (" + held.Holder.String() + ")"
		}
		return fmt.Errorf("Spark can't start its engine: its folder %s is already in use by %s, and only one program at a time may use it. "+
			"Close the other one (another Spark window, or a spark-engine serve using that folder), then start Spark again.", dir, who)
	}
	return fmt.Errorf("Spark can't start its engine in %s: %v", dir, err)
}

func (a *App) openLog() error {
	p := filepath.Join(a.dataDir, "logs", "spark.log")
	f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("Spark can't write its log %s (%v). Check that the disk is not full.", p, err)
	}
	a.logFile = f
	var h slog.Handler = slog.NewTextHandler(f, &slog.HandlerOptions{Level: slog.LevelInfo})
	if a.opts.Logger != nil {
		h = slog.NewMultiHandler(h, a.opts.Logger.Handler())
	}
	// A family engine's address may carry a password, a seat's a key: the
	// app's log shows neither.
	a.log = slog.New(pippa.RedactHandler(h))
	return nil
}

// connect starts the embedded engine or points at the family engine, as
// the prefs say, and aims the outbox at it. Called with a.mu held.
func (a *App) connect(ctx context.Context) error {
	if a.prefs.Engine == EngineRemote {
		a.stopLocal()
		a.cl = client.New(a.prefs.RemoteURL, a.prefs.RemoteToken, a.hc)
		a.ob.SetTarget(outbox.Target{URL: a.prefs.RemoteURL, Token: a.prefs.RemoteToken})
		a.useReplica(ctx)
		a.log.Info("using the family engine", "url", a.prefs.RemoteURL)
		return nil
	}
	if a.local == nil {
		le, err := StartLocalEngine(ctx, LocalConfig{
			Dir:    filepath.Join(a.dataDir, "engine"),
			Addr:   "127.0.0.1:0",
			Token:  a.prefs.LocalToken,
			Pippa:  a.prefs.Pippa,
			Logger: a.log.With("part", "engine"),
		})
		if err != nil {
			return engineProblem(filepath.Join(a.dataDir, "engine"), err)
		}
		a.local = le
		if le.Token != a.prefs.LocalToken {
			a.prefs.LocalToken = le.Token
			if err := savePrefs(a.dataDir, a.prefs); err != nil {
				return err
			}
		}
		if err := atomicfile.WriteFile(filepath.Join(a.dataDir, "engine-address"), []byte(le.URL+"\n"), 0o600); err != nil {
			return err
		}
	}
	a.cl = client.New(a.local.URL, a.local.Token, a.hc)
	a.ob.SetTarget(outbox.Target{URL: a.local.URL, Token: a.local.Token})
	a.log.Info("using the engine on this computer", "url", a.local.URL)
	return nil
}

// stopLocal closes the embedded engine, if it runs. Called with a.mu held.
func (a *App) stopLocal() {
	if a.local == nil {
		return
	}
	if err := a.local.Close(); err != nil {
		a.log.Error("close the engine", "err", err)
	}
	a.local = nil
	_ = os.Remove(filepath.Join(a.dataDir, "engine-address"))
}

// startDrain runs the outbox's drain and forwards its events to the UI.
// Called with a.mu held.
func (a *App) startDrain() {
	ctx, cancel := context.WithCancel(context.Background())
	a.stop = cancel
	a.drained = make(chan struct{})
	ob, done := a.ob, a.drained
	go func() {
		defer close(done)
		if err := ob.Run(ctx); err != nil && !errors.Is(err, context.Canceled) {
			a.log.Error("the drain stopped", "err", err)
		}
	}()
	a.events = a.forwardEvents(ob)
}

// Shutdown stops the drain between steps, closes the outbox and the engine
// (its log synced). Wails calls it when the window closes.
func (a *App) Shutdown() {
	a.watch.stopWatch()
	a.stopSync()
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.stop != nil {
		a.stop()
		<-a.drained
		a.stop = nil
	}
	if a.events != nil {
		a.events()
		a.events = nil
	}
	if a.ob != nil {
		if err := a.ob.Close(); err != nil {
			a.log.Error("close the outbox", "err", err)
		}
		a.ob = nil
	}
	a.stopLocal()
	a.closeReplica()
	a.log.Info("Spark stopped")
	if a.logFile != nil {
		a.logFile.Close()
		a.logFile = nil
	}
}

// client returns the current engine's client, or ErrNotReady.
func (a *App) client() (*client.Client, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.cl == nil {
		return nil, ErrNotReady
	}
	return a.cl, nil
}

// queue returns the outbox, or ErrNotReady.
func (a *App) queue() (*outbox.Outbox, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.ob == nil {
		return nil, ErrNotReady
	}
	return a.ob, nil
}

// token is the current engine's bearer token.
func (a *App) token() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.prefs.Engine == EngineRemote {
		return a.prefs.RemoteToken
	}
	if a.local != nil {
		return a.local.Token
	}
	return ""
}

func (a *App) emit(event string, data any) {
	a.mu.Lock()
	sh := a.shell
	a.mu.Unlock()
	if sh != nil {
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
