package outbox

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/client"
)

// Target is the engine the drain delivers to.
type Target struct {
	URL   string // base URL, e.g. http://127.0.0.1:8787
	Token string
}

// The drain delivers in lanes: each photo in a lane of its own, a few at
// once (Options.Concurrency), and every other write in one lane,
// writesLane, one at a time in the order Dad made them (the kinds table's
// ownLane; laneOf). One scheduler (schedule) starts lanes, one map holds
// the lanes in flight and one the lanes kept off while an entry of theirs
// is discarded, and stopLane is the one way to stop a lane.

// writesLane is the lane of every write that has no lane of its own.
const writesLane = "writes"

// laneOf is the lane r is delivered in.
func laneOf(r *row) string {
	if kinds[r.Kind].ownLane {
		return r.ID
	}
	return writesLane
}

// drainState is the drain's in-memory bookkeeping; the truth is in SQLite.
type drainState struct {
	mu       sync.Mutex
	target   Target
	client   *client.Client
	kick     chan struct{}
	clearAll bool // Kick asked to ignore back-off timers
	running  bool
	flights  map[string]*flight // the lanes in flight
	blocked  map[string]int     // lanes an entry of which is being discarded: not to be started
	// away is set when an entry may wait because the engine did not
	// answer (Verdict.Unreachable), from Open on (an earlier run's), and
	// cleared by EngineAnswered: while it is clear, EngineAnswered has
	// nothing to look for.
	away    bool
	lastLog string
}

type flight struct {
	cancel context.CancelFunc
	done   chan struct{}
	// again: the lane is to look once more before it ends (an entry may
	// have come in after it looked).
	again bool
}

func (d *drainState) init() {
	d.kick = make(chan struct{}, 1)
	d.flights = map[string]*flight{}
	d.blocked = map[string]int{}
	d.away = true
}

// sawAway notes that an entry waits because the engine did not answer
// (after recording it, so that EngineAnswered, which clears away first,
// never misses it).
func (d *drainState) sawAway() {
	d.mu.Lock()
	d.away = true
	d.mu.Unlock()
}

// stopLane keeps the drain off a lane and waits for a delivery in it to
// stop (Discard: the entry's own lane, or the writes', which go one at a
// time). releaseLane undoes it.
func (d *drainState) stopLane(lane string) {
	d.mu.Lock()
	d.blocked[lane]++
	f := d.flights[lane]
	d.mu.Unlock()
	if f != nil {
		f.cancel()
		<-f.done
	}
}

func (d *drainState) releaseLane(lane string) {
	d.mu.Lock()
	if d.blocked[lane]--; d.blocked[lane] <= 0 {
		delete(d.blocked, lane)
	}
	d.mu.Unlock()
}

// startLane runs deliver in lane, unless the lane is kept off, or in
// flight (it is then told to look again before it ends). When deliver
// returns, the drain is told (finished) if it tried anything or was told
// to look again: a lane that found nothing says nothing, or the drain and
// it would wake each other for ever. Called with d.mu held.
func (o *Outbox) startLane(ctx context.Context, lane string, wg *sync.WaitGroup, finished chan struct{}, deliver func(context.Context) bool) {
	d := &o.drain
	if d.blocked[lane] > 0 {
		return
	}
	if f := d.flights[lane]; f != nil {
		f.again = true
		return
	}
	fctx, cancel := context.WithCancel(ctx)
	f := &flight{cancel: cancel, done: make(chan struct{})}
	d.flights[lane] = f
	wg.Add(1)
	go func() {
		defer wg.Done()
		tried := deliver(fctx)
		cancel()
		d.mu.Lock()
		again := f.again
		delete(d.flights, lane)
		d.mu.Unlock()
		close(f.done)
		if tried || again {
			select {
			case finished <- struct{}{}:
			default:
			}
		}
	}()
}

// SetTarget switches the engine entries are delivered to. Pending entries
// go to the new engine (parked ones once the user retries them). An entry part-way delivered to
// another engine starts again from the first step there, since that engine
// has never seen its moment (the ids it was captured with make the replay
// harmless if it has); entries already delivered stay delivered. The drain
// is woken, and deliveries in progress to the old engine are stopped.
func (o *Outbox) SetTarget(t Target) {
	t.URL = strings.TrimRight(strings.TrimSpace(t.URL), "/")
	d := &o.drain
	d.mu.Lock()
	if t == d.target {
		d.mu.Unlock()
		return
	}
	urlChanged := t.URL != d.target.URL
	d.target = t
	d.client = nil
	if t.URL != "" {
		d.client = client.New(t.URL, t.Token, o.opts.HTTPClient)
	}
	var stop []*flight
	if urlChanged {
		for _, f := range d.flights {
			stop = append(stop, f)
		}
	}
	d.mu.Unlock()
	for _, f := range stop {
		f.cancel()
	}
	o.Kick()
}

// Kick wakes the drain now and makes every pending entry due at once,
// ignoring back-off timers (a manual "send now").
func (o *Outbox) Kick() {
	o.drain.mu.Lock()
	o.drain.clearAll = true
	o.drain.mu.Unlock()
	o.wake()
}

// EngineAnswered tells the outbox that the engine at url answered just
// now: a health check, a sync, a step of the drain's own. When url is the
// engine the drain delivers to, every entry waiting because that engine
// did not answer (no connection, a time-out, a proxy's 502, 503 or 504
// that asked for no wait: Verdict.Unreachable) is due at once and the
// drain is woken, so a change made offline goes as soon as the engine is
// back rather than at the end of its back-off. Waits the engine asked for
// (a 429, a Retry-After), and entries parked, are left alone. Cheap when
// nothing waits that way: any part of Spark that sees the engine answer
// may call it, as often as it sees it.
func (o *Outbox) EngineAnswered(url string) {
	url = strings.TrimRight(strings.TrimSpace(url), "/")
	d := &o.drain
	d.mu.Lock()
	if url == "" || url != d.target.URL || !d.away {
		d.mu.Unlock()
		return
	}
	d.away = false
	d.mu.Unlock()
	res, err := o.db.Exec(`UPDATE queue SET next_try = 0 WHERE state = 'pending' AND next_try > 0 AND unreachable = 1`)
	if err != nil {
		d.sawAway() // to try again at the next answer
		o.logOnce("outbox: cannot end the waits for the engine", err)
		return
	}
	if n, _ := res.RowsAffected(); n > 0 {
		o.log.Info("outbox: the engine answers again; sending what waited for it", "entries", n)
		o.wake()
	}
}

func (o *Outbox) wake() {
	select {
	case o.drain.kick <- struct{}{}:
	default:
	}
}

// Run delivers entries until ctx is done, then waits for deliveries in
// progress to stop and returns nil. Entries are delivered a few at a time
// (Options.Concurrency), each in its own step order; a waiting or parked
// entry never holds up the others. Without a target it waits for
// SetTarget. Only one Run may be active at a time (ErrRunning).
func (o *Outbox) Run(ctx context.Context) error {
	d := &o.drain
	d.mu.Lock()
	if d.running {
		d.mu.Unlock()
		return ErrRunning
	}
	d.running = true
	d.mu.Unlock()
	var wg sync.WaitGroup
	finished := make(chan struct{}, 64)
	defer func() {
		d.mu.Lock()
		for _, f := range d.flights {
			f.cancel()
		}
		d.mu.Unlock()
		wg.Wait()
		d.mu.Lock()
		d.running = false
		d.mu.Unlock()
	}()
	for {
		wait := o.schedule(ctx, &wg, finished)
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return nil
		case <-o.closed:
			timer.Stop()
			return ErrClosed
		case <-d.kick:
		case <-finished:
		case <-timer.C:
		}
		timer.Stop()
	}
}

// idleWait is how long the drain sleeps when nothing is scheduled; any
// capture, retry or target change wakes it sooner.
const idleWait = time.Minute

// schedule starts deliveries of due entries and returns how long to sleep
// before the next one falls due.
func (o *Outbox) schedule(ctx context.Context, wg *sync.WaitGroup, finished chan struct{}) time.Duration {
	d := &o.drain
	d.mu.Lock()
	clearAll := d.clearAll
	d.clearAll = false
	c, target := d.client, d.target
	own := len(d.flights) // the lanes of photos in flight, and the writes' when it is
	if d.flights[writesLane] != nil {
		own--
	}
	free := o.opts.Concurrency - own
	skip := len(d.flights) + len(d.blocked)
	d.mu.Unlock()

	if clearAll {
		o.clearTimers(ctx)
	}
	// now is read before the writer starts: a write it finds not yet due
	// is then due after now, so nextDue below sees it. Read after, a write
	// falling due in between would be neither sent nor waited for.
	now := o.opts.Now().UnixMilli()
	if c == nil {
		return idleWait
	}
	d.mu.Lock()
	o.startLane(ctx, writesLane, wg, finished, func(ctx context.Context) bool { return o.deliverWrites(ctx, c, target) })
	d.mu.Unlock()
	if free > 0 && !o.startDue(ctx, c, target, wg, finished, now, free, skip) {
		return time.Second
	}
	next, err := o.nextDue(ctx, now)
	if err != nil || next == 0 {
		return idleWait
	}
	wait := time.UnixMilli(next).Sub(o.opts.Now())
	if wait < time.Millisecond {
		wait = time.Millisecond
	}
	return min(wait, idleWait)
}

// startDue starts the delivery of up to free entries due at now; skip is
// how many of the due ones may be in flight or blocked already. It reports
// false when the due entries could not be read.
func (o *Outbox) startDue(ctx context.Context, c *client.Client, target Target, wg *sync.WaitGroup, finished chan struct{}, now int64, free, skip int) bool {
	d := &o.drain
	rows, err := o.db.QueryContext(ctx, `SELECT id FROM queue WHERE kind = 'photo' AND state = 'pending' AND next_try <= ?
		ORDER BY next_try, made_at, id LIMIT ?`, now, free+skip)
	if err != nil {
		o.logOnce("outbox: cannot read due entries", err)
		return false
	}
	var due []string
	for rows.Next() {
		var id string
		if rows.Scan(&id) == nil {
			due = append(due, id)
		}
	}
	rows.Close()
	d.mu.Lock()
	for _, id := range due {
		if free == 0 {
			break
		}
		if d.flights[id] != nil || d.blocked[id] > 0 {
			continue
		}
		free--
		o.startLane(ctx, id, wg, finished, func(ctx context.Context) bool {
			o.deliverPhoto(ctx, c, target, id)
			return true
		})
	}
	d.mu.Unlock()
	return true
}

// deliverPhoto runs a photo's remaining steps (deliver).
func (o *Outbox) deliverPhoto(ctx context.Context, c *client.Client, target Target, id string) {
	r, err := o.row(ctx, id)
	if err != nil {
		if ctx.Err() == nil && !errors.Is(err, ErrNotFound) {
			o.logOnce("outbox: cannot read entry "+id, err)
		}
		return
	}
	o.deliver(ctx, c, target, r)
}

// photoStep performs one step of a photo at the engine: the turn's answer
// is the *api.Turn started.
func (o *Outbox) photoStep(ctx context.Context, c *client.Client, e *Entry, step string) (any, error) {
	switch step {
	case StepCreate:
		m, _, err := c.CreateMoment(ctx, api.CreateMomentRequest{
			ID: e.MomentID, ClientRequestID: e.ID, Kind: api.KindPhoto, TakenAt: e.TakenAt,
			CopyID: e.CopyID, OriginalID: e.OriginalID,
		})
		if err != nil {
			return nil, err
		}
		if m != nil && m.ID != e.MomentID {
			return nil, Permanent("moment_mismatch", fmt.Errorf("the engine has request id %s as moment %s, not %s; discard this entry and import the photo again", e.ID, m.ID, e.MomentID))
		}
		return m, nil
	case StepCopy, StepOriginal:
		return nil, o.upload(ctx, c, fileOf(e, step))
	case StepTurn:
		t, _, err := c.StartTurn(ctx, e.MomentID, api.StartTurnRequest{ClientRequestID: e.TurnRequestID, Mode: api.ModePractical})
		return t, err
	}
	return nil, Permanent("bad_step", fmt.Errorf("unknown step %q", step))
}

// openOutboxFile opens an entry's file for its upload; tests swap it to
// answer as a file the user may not read would (chmod does not stop root).
var openOutboxFile = os.Open

// progressEvery is how many bytes pass between progress events.
const progressEvery = 256 << 10

// wholeBelow is the size under which a file goes whole, by the contract's
// PUT, in one request: the resumable path's three (where does the engine
// stand, create, append) would each meet the link's trouble, and a drop
// loses little. Photos' originals are larger; small copies under
// client.ResumableFrom go by PUT in client.UploadMedia too.
const wholeBelow = 256 << 10

// entryFile is one of an entry's two files, as its upload step sends it.
type entryFile struct {
	entry       *Entry
	step        string // StepCopy or StepOriginal
	mediaID     string
	role        string // api.RoleCopy or api.RoleOriginal
	name        string // in the entry's folder
	contentType string
	size        int64
	sha256      string // hex
}

// fileOf is the file that step (StepCopy or StepOriginal) of e uploads.
func fileOf(e *Entry, step string) entryFile {
	if step == StepCopy {
		return entryFile{entry: e, step: step, mediaID: e.CopyID, role: api.RoleCopy, name: copyName,
			contentType: "image/jpeg", size: e.CopySize, sha256: e.CopySHA256}
	}
	return entryFile{entry: e, step: step, mediaID: e.OriginalID, role: api.RoleOriginal, name: originalName,
		contentType: e.ContentType, size: e.Size, sha256: e.SHA256}
}

// upload sends one file of an entry from disk by client.UploadMedia: an
// original (and a small copy over client.ResumableFrom) resumes where the
// engine's copy of it stopped, when the engine offers resumable uploads;
// a file under wholeBelow goes whole.
// The bytes the engine holds are told as they grow, by progress events,
// and, on the resumable path, stored as the entry's Sending each time the
// engine tells them (recordSending), until the step is done. A file of the entry's
// own that cannot be read (gone, permission denied, a folder in its
// place, cut short or grown, a read error) parks the entry with a reason
// about this computer: no engine and no wait can fix it.
func (o *Outbox) upload(ctx context.Context, c *client.Client, file entryFile) error {
	e := file.entry
	path := filepath.Join(o.entryDir(e.ID), file.name)
	f, err := openOutboxFile(path)
	if err != nil {
		return localFileTrouble(file, path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return localFileTrouble(file, path, err)
	}
	if !fi.Mode().IsRegular() {
		return localFileTrouble(file, path, fmt.Errorf("%s is not a file", path))
	}
	if fi.Size() != file.size {
		return Permanent(CodeChangedFile, &FileTrouble{Role: file.role, Name: e.Name, Path: path, Size: fi.Size(), Want: file.size})
	}
	sum, err := hex.DecodeString(file.sha256)
	if err != nil {
		return Permanent("bad_entry", fmt.Errorf("the outbox holds a bad SHA-256 for %s; discard this entry and import the photo again", e.Name))
	}
	body := &localReader{r: f, want: file.size}
	last := int64(-1)
	progress := func(held int64) {
		if last < 0 || held-last >= progressEvery || held == file.size {
			last = held
			o.events.publish(Event{Kind: EventProgress, EntryID: e.ID, Step: file.step, Sent: held, Total: file.size, At: o.opts.Now()})
		}
	}
	if file.size < wholeBelow {
		// One request: a file this small has nothing worth resuming.
		_, _, err = c.PutMedia(ctx, client.PutMedia{
			ID: file.mediaID, MomentID: e.MomentID, Role: file.role, ContentType: file.contentType,
			Body: io.NewSectionReader(body, 0, file.size), Size: file.size, SHA256: sum,
		})
		if err == nil {
			progress(file.size)
		}
	} else {
		_, _, err = c.UploadMedia(ctx, client.UploadMedia{
			ID: file.mediaID, MomentID: e.MomentID, Role: file.role, ContentType: file.contentType,
			From: body, Size: file.size, SHA256: sum,
			Progress: func(held int64) {
				// Told as the engine answers an offset: at the start
				// of a try and once a part (client.PartSize).
				if held < file.size {
					o.recordSending(ctx, e.ID, e.StepsDone, file.step, held, file.size)
				}
				progress(held)
			},
		})
	}
	if rerr := body.failed(); err != nil && rerr != nil && ctx.Err() == nil {
		// The upload failed because the file could not be read, not
		// because of the engine or the network.
		return localFileTrouble(file, path, rerr)
	}
	return err
}

// localFileTrouble is the parking error for an entry file that cannot be
// opened or read: a code (CodeMissingFile or CodeUnreadableFile) and the
// facts (FileTrouble). The words for the person at the computer are made
// from the code, by the window (frontend/src/words.ts) and by the spark
// command (cmd/spark).
func localFileTrouble(file entryFile, path string, err error) error {
	code := CodeUnreadableFile
	if errors.Is(err, os.ErrNotExist) {
		code = CodeMissingFile
	}
	return Permanent(code, &FileTrouble{Role: file.role, Name: file.entry.Name, Path: path, Err: err})
}

// FileTrouble is what is wrong with one of an entry's own files in the
// outbox: which file (Role, api.RoleCopy or api.RoleOriginal, of the photo
// Name), where, and either the error reading it or, for a file changed
// since the capture, its Size against the Want recorded. Its Error is in
// the system's words, for the log and Details.
type FileTrouble struct {
	Role, Name, Path string
	Size, Want       int64
	Err              error
}

func (f *FileTrouble) Error() string {
	if f.Err == nil {
		return fmt.Sprintf("%s of %s: %s: %d bytes, %d when captured", f.Role, f.Name, f.Path, f.Size, f.Want)
	}
	return fmt.Sprintf("%s of %s: %s: %v", f.Role, f.Name, f.Path, f.Err)
}

func (f *FileTrouble) Unwrap() error { return f.Err }

// localReader keeps the first read error of an entry's file, so that an
// upload cut short by the disk is told from one cut short by the network.
// Reading fewer bytes than the entry recorded is an error too: the file
// changed since the photo was added. The HTTP transport reads it from its
// own goroutine, hence the lock.
type localReader struct {
	r    io.ReaderAt
	want int64

	mu  sync.Mutex
	err error
}

func (l *localReader) ReadAt(b []byte, off int64) (int, error) {
	n, err := l.r.ReadAt(b, off)
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.err != nil:
	case err == io.EOF && off+int64(n) < l.want:
		l.err = fmt.Errorf("the file ended after %d bytes of %d", off+int64(n), l.want)
	case err != nil && err != io.EOF:
		l.err = err
	}
	return n, err
}

// failed is the first read error, nil when none.
func (l *localReader) failed() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

// logOnce logs each distinct error once in a row, as logtail does, so a
// long outage does not flood the log.
func (o *Outbox) logOnce(msg string, err error) {
	s := msg + ": " + err.Error()
	o.drain.mu.Lock()
	same := s == o.drain.lastLog
	o.drain.lastLog = s
	o.drain.mu.Unlock()
	if !same {
		o.log.Info(msg, "err", err)
	}
}
