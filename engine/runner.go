package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/mirror"
	"github.com/sparkfamily/spark/engine/pippa"
	"github.com/sparkfamily/spark/internal/retry"
)

// maxImageBytes bounds the small copy a turn sends to a seat.
const maxImageBytes = api.MaxReadImageBytes

// errPhotoTooLarge is the failure of a turn whose moment's small copy is
// past maxImageBytes.
var errPhotoTooLarge = errors.New("it is larger than a small copy can be; upload a small copy (at most 1600 pixels a side)")

// seatFailure is a seat's failure to read a turn once the runner gave up
// on it, with the code that says why (api.ReadFailCodes).
type seatFailure struct {
	code string
	err  error
}

func (f *seatFailure) Error() string { return f.err.Error() }
func (f *seatFailure) Unwrap() error { return f.err }

// failCode says why a turn failed with err (api.ReadFailCodes), by the
// error's type: what the seat did (seatFailure), a small copy too large
// to show, or anything else.
func failCode(err error) string {
	var f *seatFailure
	switch {
	case errors.As(err, &f):
		return f.code
	case errors.Is(err, errPhotoTooLarge):
		return api.ReadPhotoTooLarge
	}
	return api.ReadFailed
}

// maxRetryAfter bounds how long a seat's Retry-After holds a worker
// before it asks again.
const maxRetryAfter = 5 * time.Minute

// finishTimeout bounds the logging of a turn's outcome.
const finishTimeout = 30 * time.Second

// seatRef is a configured seat and its client.
type seatRef struct {
	cfg  pippa.Config
	seat pippa.Seat
}

// runner is the bounded pool of workers that ask Pippa: a FIFO queue of
// turn ids, the turns the workers hold, and the seats.
type runner struct {
	e *Engine

	mu        sync.Mutex
	cond      *sync.Cond
	queue     []string
	pending   map[string]bool   // queued or held by a worker
	running   map[string]string // turn id -> name of the seat asked
	seats     []seatRef
	fileSeats []pippa.Config // the seats of engine.json
	closed    bool

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	// rand is the back-off's jitter source; nil is math/rand/v2's. Tests
	// fix it.
	rand func() float64
}

func newRunner(e *Engine) *runner {
	ctx, cancel := context.WithCancel(context.Background())
	r := &runner{
		e:       e,
		pending: make(map[string]bool),
		running: make(map[string]string),
		ctx:     ctx,
		cancel:  cancel,
	}
	r.cond = sync.NewCond(&r.mu)
	return r
}

func (r *runner) start(workers int) {
	for range workers {
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			r.work()
		}()
	}
}

// stop tells the workers to stop, cancels the turns they are asking (those
// stay unfinished in the log, to be asked again at the next Open) and waits
// for them.
func (r *runner) stop() {
	r.mu.Lock()
	r.closed = true
	r.cond.Broadcast()
	r.mu.Unlock()
	r.cancel()
	r.wg.Wait()
}

// enqueue adds turns to the queue, once each.
func (r *runner) enqueue(ids ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, id := range ids {
		if r.pending[id] {
			continue
		}
		r.pending[id] = true
		r.queue = append(r.queue, id)
	}
	r.cond.Broadcast()
}

// redact redacts text as a failed reading's error is: URLs' credentials
// and queries, and the secrets of every seat.
func (r *runner) redact(text string) string {
	r.mu.Lock()
	var secrets []string
	for _, s := range r.seats {
		secrets = append(secrets, s.cfg.Secrets()...)
	}
	r.mu.Unlock()
	return pippa.Redact(text, secrets...)
}

// setSeats replaces the seats and wakes the workers.
func (r *runner) setSeats(cfgs, fileSeats []pippa.Config) {
	refs := make([]seatRef, len(cfgs))
	for i, c := range cfgs {
		refs[i] = seatRef{cfg: c, seat: pippa.New(c, r.e.cfg.HTTPClient)}
	}
	r.mu.Lock()
	r.seats = refs
	r.fileSeats = fileSeats
	r.cond.Broadcast()
	r.mu.Unlock()
}

// seated tells whether there is a seat to ask; without one, the queued
// turns wait for setSeats.
func (r *runner) seated() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.seats) > 0
}

// overlay shows a queued turn that a worker holds as running, with its seat.
func (r *runner) overlay(t *api.Turn) {
	if t.Status != api.TurnQueued {
		return
	}
	r.mu.Lock()
	seat, ok := r.running[t.ID]
	r.mu.Unlock()
	if ok {
		t.Status = api.TurnRunning
		if t.Seat == "" {
			t.Seat = seat
		}
	}
}

// next waits for a queued turn and a seat; ok is false once the runner stops.
func (r *runner) next() (id string, seats []seatRef, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for !r.closed && (len(r.queue) == 0 || len(r.seats) == 0) {
		r.cond.Wait()
	}
	if r.closed {
		return "", nil, false
	}
	id = r.queue[0]
	r.queue[0] = ""
	r.queue = r.queue[1:]
	return id, r.seats, true
}

func (r *runner) work() {
	for {
		id, seats, ok := r.next()
		if !ok {
			return
		}
		r.run(id, seats)
		r.mu.Lock()
		delete(r.running, id)
		delete(r.pending, id)
		r.mu.Unlock()
	}
}

// pick chooses the seat of a turn: a job turn's own seat (by name, else by
// index), the first seat for the others.
func pick(t *mirror.Turn, seats []seatRef) seatRef {
	if t.Job != "" {
		for _, s := range seats {
			if t.Seat != "" && s.cfg.Name == t.Seat {
				return s
			}
		}
		return seats[t.JobIndex%len(seats)]
	}
	return seats[0]
}

// run asks a seat for one turn and logs its outcome. When the runner stops
// mid-turn nothing is logged: the turn stays unfinished and is asked again
// at the next Open.
func (r *runner) run(id string, seats []seatRef) {
	e := r.e
	ctx := r.ctx
	t, err := e.mirror.Turn(ctx, id)
	if err != nil {
		if ctx.Err() == nil {
			e.logger.Error("engine: read a queued turn", "turn", id, "err", err)
		}
		return
	}
	if t.FinishedAt != nil {
		return
	}
	seat := pick(t, seats)
	r.mu.Lock()
	r.running[id] = seat.cfg.Name
	r.mu.Unlock()

	fin := mirror.TurnFinish{ID: id, Seat: seat.cfg.Name}
	req, err := e.pippaRequest(ctx, t)
	var text string
	if err == nil {
		text, err = r.ask(ctx, seat, req)
	}
	if ctx.Err() != nil {
		return
	}
	if err != nil {
		// The error is kept in the log for good: no secret of the seat
		// may be in it.
		fin.Status, fin.Error, fin.ErrorCode = api.TurnFailed, seat.cfg.Redact(err.Error()), failCode(err)
		e.logger.Warn("engine: turn failed", "turn", id, "seat", seat.cfg.Name, "code", fin.ErrorCode, "err", fin.Error)
	} else {
		fin.Status, fin.Text = api.TurnFinished, text
	}
	clipFinish(&fin)
	rec, err := record(api.OpTurnFinish, "", fin)
	if err == nil {
		actx, cancel := context.WithTimeout(context.Background(), finishTimeout)
		err = e.appendOps(actx, rec)
		cancel()
	}
	if err != nil {
		e.logger.Error("engine: log a turn's outcome; it will be asked again at the next start", "turn", id, "err", err)
		return
	}
	if e.cfg.OnTurn != nil {
		e.cfg.OnTurn(fin.Status)
	}
}

// ask asks the seat, retrying transient failures with full-jitter
// exponential back-off (retry.Backoff: after the n-th failure a random
// wait below RetryBackoff·2^(n-1), capped at maxRetryBackoff) that waits at
// least the seat's Retry-After (up to maxRetryAfter); its error is a
// *seatFailure: a message for whoever looks after the seat, and the code
// of why (pippa.FailCode; pippa_unreachable once the attempts are spent).
func (r *runner) ask(ctx context.Context, s seatRef, req pippa.Request) (string, error) {
	cfg := r.e.cfg
	b := retry.Backoff{Base: cfg.RetryBackoff, Cap: maxRetryBackoff, Rand: r.rand}
	for attempt := 1; ; attempt++ {
		text, err := s.seat.Read(ctx, req)
		if err == nil {
			return text, nil
		}
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		if !pippa.IsTransient(err) {
			return "", &seatFailure{code: pippa.FailCode(err),
				err: fmt.Errorf("Pippa's seat %q (%s) refused the request: %w; check the seat's URL, model and key", s.cfg.Name, s.cfg.URL, err)}
		}
		if attempt >= cfg.RetryAttempts {
			return "", &seatFailure{code: pippa.FailCode(err),
				err: fmt.Errorf("Pippa's seat %q (%s) did not answer after %d attempts: %w; check that the model server is running and reachable, then ask again", s.cfg.Name, s.cfg.URL, attempt, err)}
		}
		var after time.Duration
		var he *pippa.HTTPError
		if errors.As(err, &he) {
			after = min(he.RetryAfter, maxRetryAfter)
		}
		wait := b.Wait(attempt, after)
		r.e.logger.Info("engine: seat failed, retrying", "seat", s.cfg.Name, "attempt", attempt, "wait", wait, "err", s.cfg.Redact(err.Error()))
		if err := retry.Sleep(ctx, wait); err != nil {
			return "", err
		}
	}
}

// pippaRequest gathers what a seat is shown: the moment's small copy and
// caption, and for a recall its phrases.
func (e *Engine) pippaRequest(ctx context.Context, t *mirror.Turn) (pippa.Request, error) {
	mo, err := e.mirror.Moment(ctx, t.MomentID)
	if err != nil {
		return pippa.Request{}, fmt.Errorf("read moment %s: %w", t.MomentID, err)
	}
	req := pippa.Request{Mode: t.Mode, Kind: mo.Kind, Caption: mo.Caption}
	if mo.Words != nil {
		req.Words = mo.Words.Text
	}
	if mo.Copy != nil {
		img, err := e.readBlob(mo.Copy.SHA256)
		if err != nil {
			return pippa.Request{}, fmt.Errorf("read the small copy %s of moment %s: %w", mo.Copy.ID, mo.ID, err)
		}
		req.Image, req.ImageType = img, mo.Copy.ContentType
	}
	if t.Recall != "" {
		rc, err := e.mirror.Recall(ctx, t.Recall)
		if err != nil {
			return pippa.Request{}, fmt.Errorf("read recall %s: %w", t.Recall, err)
		}
		for _, p := range rc.Phrases {
			req.Phrases = append(req.Phrases, p.Text)
		}
	}
	return req, nil
}

func (e *Engine) readBlob(sha string) ([]byte, error) {
	f, err := e.media.Open(sha)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxImageBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxImageBytes {
		return nil, errPhotoTooLarge
	}
	return b, nil
}
