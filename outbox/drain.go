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

	"github.com/sparkfamily/spark/api"
	"github.com/sparkfamily/spark/client"
	"github.com/sparkfamily/spark/retry"
)

// Target is the engine the drain delivers to.
type Target struct {
	URL   string // base URL, e.g. http://127.0.0.1:8787
	Token string
}

// drainState is the drain's in-memory bookkeeping; the truth is in SQLite.
type drainState struct {
	mu          sync.Mutex
	target      Target
	client      *client.Client
	kick        chan struct{}
	clearAll    bool // Kick asked to ignore back-off timers
	running     bool
	flights     map[string]*flight
	blocked     map[string]int // entries being discarded: not to be started
	writer      *flight        // the delivery of writes, while it runs (drainwrites.go)
	writerOff   int            // > 0 while a write is being discarded
	writerAgain bool           // the writer is to look again before it stops
	lastLog     string
}

type flight struct {
	cancel context.CancelFunc
	done   chan struct{}
}

func (d *drainState) init() {
	d.kick = make(chan struct{}, 1)
	d.flights = map[string]*flight{}
	d.blocked = map[string]int{}
}

// stopEntry keeps the drain off an entry and waits for a delivery of it in
// progress to stop. release undoes it.
func (d *drainState) stopEntry(id string) {
	d.mu.Lock()
	d.blocked[id]++
	f := d.flights[id]
	d.mu.Unlock()
	if f != nil {
		f.cancel()
		<-f.done
	}
}

func (d *drainState) release(id string) {
	d.mu.Lock()
	if d.blocked[id]--; d.blocked[id] <= 0 {
		delete(d.blocked, id)
	}
	d.mu.Unlock()
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
		if d.writer != nil {
			stop = append(stop, d.writer)
		}
	}
	d.mu.Unlock()
	for _, f := range stop {
		f.cancel()
	}
	o.Kick()
}

// Target returns the engine the drain delivers to.
func (o *Outbox) Target() Target {
	o.drain.mu.Lock()
	defer o.drain.mu.Unlock()
	return o.drain.target
}

// Kick wakes the drain now and makes every pending entry due at once,
// ignoring back-off timers (a manual "send now").
func (o *Outbox) Kick() {
	o.drain.mu.Lock()
	o.drain.clearAll = true
	o.drain.mu.Unlock()
	o.wake()
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
		if d.writer != nil {
			d.writer.cancel()
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
	free := o.opts.Concurrency - len(d.flights)
	skip := len(d.flights) + len(d.blocked)
	d.mu.Unlock()

	if clearAll {
		if _, err := o.db.ExecContext(ctx, "UPDATE entries SET next_try = 0 WHERE state = 'pending' AND next_try > 0"); err != nil {
			o.logOnce("outbox: cannot clear back-off timers", err)
		}
		o.clearWriteTimers(ctx)
	}
	// now is read before the writer starts: a write it finds not yet due
	// is then due after now, so nextDue below sees it. Read after, a write
	// falling due in between would be neither sent nor waited for.
	now := o.opts.Now().UnixMilli()
	o.startWriter(ctx, c, target, wg, finished)
	if c == nil {
		return idleWait
	}
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
	rows, err := o.db.QueryContext(ctx, `SELECT id FROM entries WHERE state = 'pending' AND next_try <= ?
		ORDER BY next_try, captured_at, id LIMIT ?`, now, free+skip)
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
		fctx, cancel := context.WithCancel(ctx)
		f := &flight{cancel: cancel, done: make(chan struct{})}
		d.flights[id] = f
		free--
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				cancel()
				d.mu.Lock()
				delete(d.flights, id)
				d.mu.Unlock()
				close(f.done)
				select {
				case finished <- struct{}{}:
				default:
				}
			}()
			o.deliver(fctx, c, target, id)
		}()
	}
	d.mu.Unlock()
	return true
}

// deliver runs an entry's remaining steps in order, recording each.
func (o *Outbox) deliver(ctx context.Context, c *client.Client, target Target, id string) {
	e, err := o.Entry(ctx, id)
	if err != nil {
		if ctx.Err() == nil && !errors.Is(err, ErrNotFound) {
			o.logOnce("outbox: cannot read entry "+id, err)
		}
		return
	}
	if e.State != Pending {
		return
	}
	// Never record anything once stopped; results already known are
	// recorded even if the stop comes right after.
	record := context.WithoutCancel(ctx)
	if e.StepsDone > 0 && e.Target != target.URL {
		if _, err := o.db.ExecContext(record, `UPDATE entries SET steps = 0, turn_id = '', target = ''
			WHERE id = ? AND steps = ?`, e.ID, e.StepsDone); err != nil {
			o.logOnce("outbox: cannot reset entry "+id, err)
			return
		}
		o.events.publish(Event{Kind: EventReset, EntryID: e.ID, At: o.opts.Now(),
			Message: fmt.Sprintf("the engine changed from %s to %s; delivering again from the first step", e.Target, target.URL)})
		e.StepsDone = 0
	}
	for e.StepsDone < len(Steps) {
		if ctx.Err() != nil {
			return
		}
		step := Steps[e.StepsDone]
		turnID, err := o.runStep(ctx, c, e, step)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			o.fail(record, e, step, err)
			return
		}
		if turnID == "" {
			turnID = e.TurnID
		}
		res, err := o.db.ExecContext(record, `UPDATE entries SET steps = steps + 1, target = ?, turn_id = ?,
			attempts = 0, next_try = 0, last_code = '', last_error = '' WHERE id = ? AND steps = ? AND state = 'pending'`,
			target.URL, turnID, e.ID, e.StepsDone)
		if err != nil {
			// The step is done at the engine; repeating it is harmless.
			o.fail(record, e, step, fmt.Errorf("record step %s: %w", step, err))
			return
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return // discarded or changed meanwhile
		}
		e.StepsDone++
		e.TurnID = turnID
		o.events.publish(Event{Kind: EventStepDone, EntryID: e.ID, Step: step, At: o.opts.Now()})
	}
	o.finish(record, e)
}

// runStep performs one step against the engine. It returns the turn's id
// for the turn step.
func (o *Outbox) runStep(ctx context.Context, c *client.Client, e *Entry, step string) (string, error) {
	switch step {
	case StepCreate:
		m, _, err := c.CreateMoment(ctx, api.CreateMomentRequest{
			ID: e.MomentID, ClientRequestID: e.ID, Kind: api.KindPhoto, TakenAt: e.TakenAt,
			CopyID: e.CopyID, OriginalID: e.OriginalID,
		})
		if err != nil {
			return "", err
		}
		if m != nil && m.ID != e.MomentID {
			return "", Permanent("moment_mismatch", fmt.Errorf("the engine has request id %s as moment %s, not %s; discard this entry and import the photo again", e.ID, m.ID, e.MomentID))
		}
		return "", nil
	case StepCopy, StepOriginal:
		return "", o.upload(ctx, c, fileOf(e, step))
	case StepTurn:
		t, _, err := c.StartTurn(ctx, e.MomentID, api.StartTurnRequest{ClientRequestID: e.TurnRequestID, Mode: api.ModePractical})
		if err != nil {
			return "", err
		}
		if t == nil {
			return "", nil
		}
		return t.ID, nil
	}
	return "", Permanent("bad_step", fmt.Errorf("unknown step %q", step))
}

// openOutboxFile opens an entry's file for its upload; tests swap it to
// answer as a file the user may not read would (chmod does not stop root).
var openOutboxFile = os.Open

// progressEvery is how many bytes pass between progress events.
const progressEvery = 256 << 10

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

// upload streams one file of an entry from disk with its Content-Digest.
// A file of the entry's own that cannot be read (gone, permission denied, a
// folder in its place, cut short or grown, a read error) parks the entry
// with a reason about this computer: no engine and no wait can fix it.
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
		return Permanent(CodeChangedFile, fmt.Errorf("the %s of %s that Spark keeps on this computer to send has changed since the photo was added (%d bytes, not %d: %s). "+
			"If you put an older copy of Spark's folder back, put the right one back and press Retry; otherwise press Discard and add the photo again",
			roleWords(file.role), e.Name, fi.Size(), file.size, path))
	}
	sum, err := hex.DecodeString(file.sha256)
	if err != nil {
		return Permanent("bad_entry", fmt.Errorf("the outbox holds a bad SHA-256 for %s; discard this entry and import the photo again", e.Name))
	}
	body := &localReader{r: f, want: file.size}
	var last int64
	_, _, err = c.PutMedia(ctx, client.PutMedia{
		ID: file.mediaID, MomentID: e.MomentID, Role: file.role, ContentType: file.contentType,
		Body: body, Size: file.size, SHA256: sum,
		Progress: func(sent int64) {
			if sent-last >= progressEvery || sent == file.size {
				last = sent
				o.events.publish(Event{Kind: EventProgress, EntryID: e.ID, Step: file.step, Sent: sent, Total: file.size, At: o.opts.Now()})
			}
		},
	})
	if err != nil && body.err != nil && ctx.Err() == nil {
		// The upload failed because the file could not be read, not
		// because of the engine or the network.
		return localFileTrouble(file, path, body.err)
	}
	return err
}

// localFileTrouble is the parking error for an entry file that cannot be
// opened or read, in words for the person at the computer; the system's
// own words stay in parentheses for whoever helps him.
func localFileTrouble(file entryFile, path string, err error) error {
	e := file.entry
	if errors.Is(err, os.ErrNotExist) {
		return Permanent(CodeMissingFile, fmt.Errorf("the %s of %s that Spark keeps on this computer to send is gone from its folder (%s). "+
			"If you moved it, put it back and press Retry; otherwise press Discard and add the photo again", roleWords(file.role), e.Name, path))
	}
	why := "Spark cannot read it"
	if errors.Is(err, os.ErrPermission) {
		why = "Spark is not allowed to read it"
	}
	return Permanent(CodeUnreadableFile, fmt.Errorf("the %s of %s that Spark keeps on this computer to send cannot be read: %s (%v). "+
		"If you changed the permissions of Spark's folder or put something in its place, undo that and press Retry; otherwise press Discard and add the photo again",
		roleWords(file.role), e.Name, why, err))
}

// roleWords names a file of an entry for the person at the computer.
func roleWords(role string) string {
	if role == api.RoleCopy {
		return "small copy"
	}
	return "original photo"
}

// localReader keeps the first read error of an entry's file, so that an
// upload cut short by the disk is told from one cut short by the network.
// Reading fewer bytes than the entry recorded is an error too: the file
// changed since the photo was added.
type localReader struct {
	r          io.Reader
	want, read int64
	err        error
}

func (l *localReader) Read(b []byte) (int, error) {
	n, err := l.r.Read(b)
	l.read += int64(n)
	switch {
	case l.err != nil:
	case err == io.EOF && l.read < l.want:
		l.err = fmt.Errorf("the file ended after %d bytes of %d", l.read, l.want)
	case err != nil && err != io.EOF:
		l.err = err
	}
	return n, err
}

// fail records a failed step: the entry waits or is parked.
func (o *Outbox) fail(ctx context.Context, e *Entry, step string, err error) {
	v := Classify(err)
	now := o.opts.Now()
	if v.Park {
		_, dbErr := o.db.ExecContext(ctx, `UPDATE entries SET state = 'parked', attempts = attempts + 1, next_try = 0,
			last_code = ?, last_error = ? WHERE id = ? AND state = 'pending'`, v.Code, v.Message, e.ID)
		if dbErr != nil {
			o.logOnce("outbox: cannot park entry "+e.ID, dbErr)
			return
		}
		o.log.Warn("outbox: entry parked", "entry", e.ID, "name", e.Name, "step", step, "code", v.Code, "message", v.Message)
		o.events.publish(Event{Kind: EventParked, EntryID: e.ID, Step: step, Code: v.Code, Message: v.Message, At: now})
		return
	}
	attempts := e.Attempts + 1
	b := retry.Backoff{Base: o.opts.BackoffBase, Cap: o.opts.BackoffCap, Rand: o.opts.Rand}
	wait := b.Wait(attempts, v.RetryAfter)
	next := now.Add(wait)
	_, dbErr := o.db.ExecContext(ctx, `UPDATE entries SET attempts = ?, next_try = ?, last_code = ?, last_error = ?
		WHERE id = ? AND state = 'pending'`, attempts, max(next.UnixMilli(), 1), v.Code, v.Message, e.ID)
	if dbErr != nil {
		o.logOnce("outbox: cannot record trouble for entry "+e.ID, dbErr)
	}
	o.logOnce("outbox: waiting after trouble", err)
	o.events.publish(Event{Kind: EventWaiting, EntryID: e.ID, Step: step, Code: v.Code,
		Reason: v.Message, Message: v.Message, NextTry: &next, At: now})
}

// finish marks an entry delivered and removes its files.
func (o *Outbox) finish(ctx context.Context, e *Entry) {
	now := o.opts.Now()
	tx, err := o.db.BeginTx(ctx, nil)
	if err != nil {
		o.logOnce("outbox: cannot mark delivered", err)
		return
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, `UPDATE entries SET state = 'done', delivered_at = ?, next_try = 0
		WHERE id = ? AND state = 'pending' AND steps = ?`, formatTime(now), e.ID, len(Steps))
	if err == nil {
		if n, _ := res.RowsAffected(); n == 0 {
			return
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO delivered (sha256, entry_id, moment_id, delivered_at)
			VALUES (?, ?, ?, ?) ON CONFLICT (sha256) DO NOTHING`, e.SHA256, e.ID, e.MomentID, formatTime(now))
	}
	if err == nil {
		err = tx.Commit()
	}
	if err != nil {
		o.logOnce("outbox: cannot mark delivered", err)
		return
	}
	// A crash before this removal leaves a folder that Open removes; a
	// folder that cannot be removed now is remembered (removals.go).
	o.removeDelivered(ctx, e.ID)
	o.events.publish(Event{Kind: EventDone, EntryID: e.ID, At: now})
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
