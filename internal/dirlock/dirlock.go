// Package dirlock keeps a folder to one process at a time: an exclusive
// lock on a file in the folder (flock on Unix, LockFileEx on Windows) that
// the operating system releases when the holder exits, however it exits.
//
// The holder writes its pid, program, purpose, host and start time into the
// lock file, so that a second taker can say who holds the folder:
//
//	the folder /srv/spark is in use by pid 4121 (spark-engine serve, running the engine, since 2026-03-01 09:00:00 UTC)
//
// The lock file stays in the folder after Release (emptied): removing it
// would let a process that opened the old file and a process that creates a
// new one both think they hold the lock.
//
// The engine takes "engine.lock" in its data folder for as long as it is
// open: serve, the desktop app's own engine and rebuild, the commands that
// write the folder's log and mirror. The token commands take only
// "tokens.lock", around each change of the token file, so that they work
// beside a live serve. What only reads the folder takes no lock and works
// beside the live engine: fsck, and push, which reads its source folder
// read-only and writes to another engine over HTTP.
package dirlock

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// ErrHeld matches (errors.Is) the *HeldError of a lock another holder has.
var ErrHeld = errors.New("dirlock: the lock is held by another process")

// Holder describes the holder of a lock, as it wrote itself into the lock
// file. Fields it did not write are zero.
type Holder struct {
	PID     int
	Program string // the holder's executable and command, e.g. spark-engine serve
	Purpose string // what it holds the folder for, e.g. serve
	Host    string
	Since   time.Time
}

func (h *Holder) String() string {
	var b strings.Builder
	if h.PID > 0 {
		fmt.Fprintf(&b, "pid %d", h.PID)
		if h.PID == os.Getpid() {
			b.WriteString(", this very process")
		}
	} else {
		b.WriteString("a process whose pid is not known yet")
	}
	var what []string
	for _, s := range []string{h.Program, h.Purpose} {
		if s != "" {
			what = append(what, s)
		}
	}
	if h.Host != "" {
		if host, _ := os.Hostname(); host != h.Host {
			what = append(what, "on host "+h.Host)
		}
	}
	if !h.Since.IsZero() {
		what = append(what, "since "+h.Since.UTC().Format("2006-01-02 15:04:05 UTC"))
	}
	if len(what) > 0 {
		b.WriteString(" (" + strings.Join(what, ", ") + ")")
	}
	return b.String()
}

// HeldError is returned when the lock is held elsewhere: by another
// process, or by another Lock of this process.
type HeldError struct {
	Dir    string  // the folder
	Path   string  // the lock file
	Holder *Holder // nil when the lock file names nobody (a holder that has just taken it)
}

func (e *HeldError) Error() string {
	who := "another process"
	if e.Holder != nil {
		who = e.Holder.String()
	}
	return fmt.Sprintf("the folder %s is in use by %s; its lock file is %s", e.Dir, who, e.Path)
}

// Is makes errors.Is(err, ErrHeld) true.
func (e *HeldError) Is(target error) bool { return target == ErrHeld }

// Lock is a held lock. Release it when done; the operating system releases
// it anyway when the process ends.
type Lock struct {
	path string
	mu   sync.Mutex
	f    *os.File
}

// TryLock takes the exclusive lock file name in dir (created if needed;
// dir must exist) without waiting. purpose says what the holder does, for
// the message another taker gets. A lock held elsewhere gives a
// *HeldError.
func TryLock(dir, name, purpose string) (*Lock, error) {
	path := filepath.Join(dir, name)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("dirlock: open %s: %w", path, err)
	}
	if err := lockFile(f); err != nil {
		defer f.Close()
		if errors.Is(err, errWouldBlock) {
			return nil, &HeldError{Dir: dir, Path: path, Holder: readHolder(f)}
		}
		return nil, fmt.Errorf("dirlock: lock %s: %w", path, err)
	}
	if err := writeHolder(f, purpose); err != nil {
		unlockFile(f)
		f.Close()
		return nil, fmt.Errorf("dirlock: write %s: %w", path, err)
	}
	return &Lock{path: path, f: f}, nil
}

// Wait takes the lock like TryLock, waiting for the holder to release it
// until ctx ends; it then returns the last *HeldError.
func Wait(ctx context.Context, dir, name, purpose string) (*Lock, error) {
	delay := time.Millisecond
	for {
		l, err := TryLock(dir, name, purpose)
		if !errors.Is(err, ErrHeld) {
			return l, err
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("%w (gave up waiting for it: %v)", err, context.Cause(ctx))
		case <-t.C:
		}
		delay = min(2*delay, 50*time.Millisecond)
	}
}

// Path returns the lock file's name.
func (l *Lock) Path() string { return l.path }

// Release empties the lock file and releases the lock. It may be called
// more than once.
func (l *Lock) Release() error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	// Emptied first, so that the next taker is never named after us.
	terr := l.f.Truncate(0)
	uerr := unlockFile(l.f)
	cerr := l.f.Close()
	l.f = nil
	if err := errors.Join(uerr, cerr); err != nil {
		return fmt.Errorf("dirlock: release %s: %w", l.path, err)
	}
	_ = terr // an unemptied file only misnames a later holder for a moment
	return nil
}

// errWouldBlock is what lockFile returns for a lock held elsewhere.
var errWouldBlock = errors.New("would block")

// writeHolder replaces the lock file's contents with this process.
func writeHolder(f *os.File, purpose string) error {
	host, _ := os.Hostname()
	prog, _ := os.Executable()
	if prog == "" && len(os.Args) > 0 {
		prog = os.Args[0]
	}
	prog = strings.TrimSuffix(filepath.Base(prog), ".exe")
	// The command, when the program has them: "spark-engine serve".
	if len(os.Args) > 1 && !strings.HasPrefix(os.Args[1], "-") && len(os.Args[1]) <= 32 {
		prog += " " + os.Args[1]
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "pid %d\nprogram %s\npurpose %s\nhost %s\nsince %s\n",
		os.Getpid(), oneLine(prog), oneLine(purpose), oneLine(host), time.Now().UTC().Format(time.RFC3339))
	if err := f.Truncate(0); err != nil {
		return err
	}
	_, err := f.WriteAt(b.Bytes(), 0)
	return err
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// readHolder reads who holds the lock from the lock file; nil if it names
// nobody.
func readHolder(f *os.File) *Holder {
	b, err := io.ReadAll(io.NewSectionReader(f, 0, 4096))
	if err != nil || len(b) == 0 {
		return nil
	}
	var h Holder
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		key, val, _ := strings.Cut(sc.Text(), " ")
		switch key {
		case "pid":
			h.PID, _ = strconv.Atoi(val)
		case "program":
			h.Program = val
		case "purpose":
			h.Purpose = val
		case "host":
			h.Host = val
		case "since":
			h.Since, _ = time.Parse(time.RFC3339, val)
		}
	}
	if h.PID <= 0 && h.Program == "" {
		return nil
	}
	return &h
}
