package push

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/auth"
	"github.com/sparkfamily/spark/engine/client"
	"github.com/sparkfamily/spark/engine/mirror"
	"github.com/sparkfamily/spark/engine/oplog"
	"github.com/sparkfamily/spark/internal/retry"
)

// job is one op of the source log to replay on the target.
type job struct {
	seq    uint64
	kind   Kind
	id     string // what the op is about, for the refusals
	moment string // the moment whose queue it goes in; empty for phrases
	skip   bool   // nothing to send for this op by itself
	// held marks a skipped turn.start: delivered only with its reading.
	held bool
	// startSeq is, for a reading, the seq of its turn.start.
	startSeq uint64

	create  *api.CreateMomentRequest
	edit    *api.EditMomentRequest
	delete  bool
	restore bool
	words   *api.Words
	media   *mirror.MediaPut
	turn    *api.ImportTurnRequest
	keep    *api.KeepPhraseRequest
	unkeep  string
	// ask starts, on the target, a reading never finished on the source.
	ask *pendingTurn
	// member is the family member the source's op was written for
	// (oplog.Record.MemberOf), sent with it so that the target keeps who
	// added what (client.WithMember): an admin token's writes are that
	// member's, a device token's its own member's whatever is sent.
	member string
}

// Bounds of the readings a push holds while it reads the source's log: a
// reading started is held until its finish comes (a reading never
// finished is asked again at the end). An engine finishes or fails what
// it starts, so a log that leaves more than these unfinished is a hostile
// engine's, holding the push's memory: it stops the push.
var (
	maxPending            = 100_000
	maxPendingBytes int64 = 64 << 20
)

// ErrTooManyPending stops a push whose source leaves too many readings
// unfinished.
var ErrTooManyPending = errors.New("the source's log leaves too many readings unfinished")

// pendingSize is about what a held reading costs.
func pendingSize(d mirror.TurnStart, reqID string) int64 {
	return int64(128 + len(d.ID) + len(d.MomentID) + len(d.Mode) + len(d.Seat) + len(d.Job) + len(d.Recall) + len(reqID))
}

// prepare turns a record of the source log into the job that replays it.
func (p *pusher) prepare(r oplog.Record) (job, error) {
	j := job{seq: r.Seq, member: r.MemberOf()}
	bad := func(err error) (job, error) {
		return job{}, fmt.Errorf("the source log's op %d (%s) does not read: %w", r.Seq, r.Op, err)
	}
	if j.member != "" {
		// Sent as a header: a name no engine gives a member stops here.
		if err := auth.CheckMember(j.member); err != nil {
			return bad(err)
		}
	}
	switch r.Op {
	case api.OpMomentCreate:
		var d mirror.MomentCreate
		if err := json.Unmarshal(r.Data, &d); err != nil {
			return bad(err)
		}
		j.kind, j.id, j.moment = KindMoment, d.ID, d.ID
		// The moment keeps when it was first added: on the source, or
		// before that wherever it was moved from.
		created := r.At
		if d.CreatedAt != nil {
			created = *d.CreatedAt
		}
		j.create = &api.CreateMomentRequest{ID: d.ID, ClientRequestID: r.RequestID, Kind: d.Kind, Caption: d.Caption, TakenAt: d.TakenAt,
			CreatedAt: &created}
	case api.OpMomentEdit:
		var d mirror.MomentEdit
		if err := json.Unmarshal(r.Data, &d); err != nil {
			return bad(err)
		}
		j.kind, j.id, j.moment = KindEdit, d.ID, d.ID
		// Every edit goes with a request id, its own or one derived from
		// the op, so that a replay is recognised: an edit lands on a
		// deleted moment as a restore, and a replayed one must not bring
		// back a moment a later op of this log deleted.
		j.edit = &api.EditMomentRequest{Caption: d.Caption, TakenAt: d.TakenAt, Dismiss: d.Dismiss, ClientRequestID: editRequestID(&r)}
		if d.BaseCaption != nil {
			// The edit lands on the target as it did here: from the
			// same base, written when and where it was written.
			written := r.At
			if d.WrittenAt != nil && d.WrittenAt.Before(written) {
				written = *d.WrittenAt
			}
			by := d.WrittenBy
			if by == "" {
				by = r.Author
			}
			j.edit.BaseCaption, j.edit.WrittenAt, j.edit.WrittenBy = d.BaseCaption, &written, by
		}
	case api.OpMomentDelete:
		var d mirror.MomentDelete
		if err := json.Unmarshal(r.Data, &d); err != nil {
			return bad(err)
		}
		j.kind, j.id, j.moment, j.delete = KindDelete, d.ID, d.ID, true
	case api.OpMomentRestore:
		var d mirror.MomentRestore
		if err := json.Unmarshal(r.Data, &d); err != nil {
			return bad(err)
		}
		j.kind, j.id, j.moment, j.restore = KindRestore, d.ID, d.ID, true
	case api.OpMomentWords:
		var d mirror.MomentWords
		if err := json.Unmarshal(r.Data, &d); err != nil {
			return bad(err)
		}
		j.kind, j.id, j.moment, j.words = KindWords, d.ID, d.ID, &api.Words{Text: d.Text, Lang: d.Lang}
	case api.OpMomentPurge:
		// The engine's own op: a moment it purged is left out whole
		// (purged.go), and the target purges on its own clock.
		j.skip = true
	case api.OpMediaPut:
		var d mirror.MediaPut
		if err := json.Unmarshal(r.Data, &d); err != nil {
			return bad(err)
		}
		j.kind, j.id, j.moment, j.media = KindMedia, d.ID, d.MomentID, &d
	case api.OpTurnStart:
		var d mirror.TurnStart
		if err := json.Unmarshal(r.Data, &d); err != nil {
			return bad(err)
		}
		if _, ok := p.pending[d.ID]; !ok {
			if len(p.pending) >= maxPending || p.pendingBytes >= maxPendingBytes {
				return job{}, fmt.Errorf("%w: at op %d it holds more than %d readings started and not finished (%d KiB of them); no engine leaves so many, so this log is not one to copy",
					ErrTooManyPending, r.Seq, len(p.pending), p.pendingBytes>>10)
			}
			p.pendingBytes += pendingSize(d, r.RequestID)
		}
		p.pending[d.ID] = pendingTurn{seq: r.Seq, start: d, reqID: r.RequestID, member: r.MemberOf()}
		j.skip, j.held = true, true
	case api.OpTurnFinish:
		var d mirror.TurnFinish
		if err := json.Unmarshal(r.Data, &d); err != nil {
			return bad(err)
		}
		pt, ok := p.pending[d.ID]
		if !ok {
			// A finish whose start came before the checkpoint was sent
			// with it; or a second finish, which the fold ignores.
			j.skip = true
			return j, nil
		}
		delete(p.pending, d.ID)
		p.pendingBytes -= pendingSize(pt.start, pt.reqID)
		// The reading is its asker's: the finish is the engine's own op.
		j.startSeq, j.member = pt.seq, pt.member
		s := pt.start
		seat := d.Seat
		if seat == "" {
			seat = s.Seat
		}
		j.kind, j.id, j.moment = KindReading, d.ID, s.MomentID
		j.turn = &api.ImportTurnRequest{ID: d.ID, MomentID: s.MomentID, Mode: s.Mode, Seat: seat,
			Job: s.Job, JobIndex: s.JobIndex, Recall: s.Recall, Status: d.Status, Text: d.Text, Error: d.Error, ErrorCode: d.ErrorCode}
		if s.Job == "" && s.Recall == "" {
			j.turn.ClientRequestID = pt.reqID
		}
	case api.OpPhraseKeep:
		var d mirror.PhraseKeep
		if err := json.Unmarshal(r.Data, &d); err != nil {
			return bad(err)
		}
		j.kind, j.id = KindPhrase, d.ID
		j.keep = &api.KeepPhraseRequest{Text: d.Text, MomentID: d.MomentID}
	case api.OpPhraseUnkeep:
		var d mirror.PhraseUnkeep
		if err := json.Unmarshal(r.Data, &d); err != nil {
			return bad(err)
		}
		j.kind, j.id, j.unkeep = KindUnkeep, d.ID, d.ID
	default:
		return job{}, fmt.Errorf("the source log's op %d is %q, which this push does not know; use a newer spark-engine", r.Seq, r.Op)
	}
	return j, nil
}

// outcome of one attempt: created (sent), already there, or refused.
type outcome int

const (
	sent outcome = iota
	already
)

// errBadToken stops a push: no op can go until the token is fixed.
var errBadToken = errors.New("the target engine refuses the token")

// do sends one job, asking again through passing trouble (lost replies,
// 5xx, 429, a target restarting), and counts what happened. A job the
// target refuses is counted and listed, and left out of the checkpoint so
// that the next run sends it again; it is no error.
func (p *pusher) do(ctx context.Context, j job) (delivered bool, err error) {
	var o outcome
	err = p.retrying(ctx, 0, p.askingAgain(j), func(ctx context.Context) (err error) {
		o, err = p.send(ctx, j)
		return err
	})
	if err == nil {
		if o == sent {
			p.count(j.kind, Count{Sent: 1})
		} else {
			p.count(j.kind, Count{Already: 1})
		}
		return true, nil
	}
	if ae, ok := api.AsError(err); ok && !retry.Passing(ae.Status) {
		if _, ok := p.settle(ctx, j, ae); ok {
			p.count(j.kind, Count{Already: 1})
			return true, nil
		}
		p.refuse(j, ae.Message+" ("+ae.Code+")")
		return false, nil
	}
	return false, err
}

// askingAgain is the onRetry of j's requests: it counts the retry and
// logs it.
func (p *pusher) askingAgain(j job) func(error) {
	return func(err error) {
		p.mu.Lock()
		p.stats.Retries++
		p.mu.Unlock()
		p.opts.Logger.Debug("push: asking again", "seq", j.seq, "kind", j.kind, "err", err)
	}
}

// retrying is try through passing trouble (see retrying), paced by
// p.opts.Backoff and bounded by p.lim, for the target: a refused token is
// errBadToken, wrapped; any other *api.Error that is not passing is the
// target's final word on the request.
func (p *pusher) retrying(ctx context.Context, tries int, onRetry func(error), try func(context.Context) error) error {
	err := retrying(ctx, p.opts.Backoff, p.lim, tries, onRetry, try)
	if ae, ok := api.AsError(err); ok && ctx.Err() == nil && retry.Refused(ae.Status) {
		return fmt.Errorf("%w: %v", errBadToken, err)
	}
	return err
}

// retrying runs try until it succeeds, asking again through passing
// trouble (retry.Passing, retry.Network) after b.Wait, never sooner than
// the answer's Retry-After; after tries attempts, when tries is above 0,
// it gives up. onRetry, when not nil, hears each failure asked again. The
// error is ctx's when ctx ends, else try's last, or a peerError: ErrStalled
// when an attempt moved no byte for lim.stallAfter (it is not asked
// again), ErrGaveUp when the trouble lasted lim.giveUpAfter, or would
// by the next attempt. It is the one loop of the push, for the target
// (pusher.retrying) and for a remote source (RemoteSource.ask).
func retrying(ctx context.Context, b retry.Backoff, lim limits, tries int, onRetry func(error), try func(context.Context) error) error {
	wctx, w := watching(ctx, lim)
	defer w.stop()
	return retryingWith(ctx, wctx, w, b, lim, tries, onRetry, try)
}

// retryingWith is retrying with the attempts made under the watch w of
// wctx, which the caller stops: RemoteSource.Media's goes on over the
// answer's body.
func retryingWith(ctx, wctx context.Context, w *watch, b retry.Backoff, lim limits, tries int, onRetry func(error), try func(context.Context) error) error {
	var since time.Time // when the trouble began: its first attempt's start
	for failures := 1; ; failures++ {
		began := time.Now()
		w.begin()
		err := try(wctx)
		w.end()
		if err == nil {
			return nil
		}
		if stalled := w.err(); stalled != nil {
			return stalled
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var after time.Duration
		ae, isAPI := api.AsError(err)
		switch {
		case isAPI && !retry.Passing(ae.Status):
			return err
		case isAPI:
			after = ae.RetryAfter
		case !retry.Network(err):
			return err
		}
		if tries > 0 && failures >= tries {
			return err
		}
		if since.IsZero() {
			since = began
		}
		wait := b.Wait(failures, after)
		if left := lim.giveUpAfter - time.Since(since); lim.giveUpAfter > 0 && wait > left {
			gaveUp := &peerError{kind: ErrGaveUp, peer: lim.peer, after: lim.giveUpAfter, last: err}
			if after > left {
				gaveUp.asked = after
			}
			return gaveUp
		}
		if onRetry != nil {
			onRetry(err)
		}
		if err := retry.Sleep(ctx, wait); err != nil {
			return err
		}
	}
}

// settle tells, for a refusal that a replay after an interrupted run can
// meet, whether the target already holds what the op would write.
func (p *pusher) settle(ctx context.Context, j job, ae *api.Error) (outcome, bool) {
	if ae.Code == api.CodeRequestIDReused && j.create != nil {
		// The target used the request id for the write that made this
		// very moment there (a quick recall makes its moment itself): the
		// moment went from the target to the source and is coming back.
		// A moment's id names it; the same id and kind is the same moment.
		m, err := p.targetMoment(ctx, j)
		if err == nil && m.Kind == j.create.Kind {
			return already, true
		}
		return 0, false
	}
	if ae.Code != api.CodeMomentDeleted {
		return 0, false
	}
	// The target's moment was deleted by a later op of this same log,
	// delivered before the checkpoint caught up.
	m, err := p.targetMoment(ctx, j)
	if err != nil || m.DeletedAt == nil {
		return 0, false
	}
	switch {
	case j.edit != nil:
		return already, true
	case j.media != nil:
		for _, md := range []*api.Media{m.Copy, m.Original} {
			if md != nil && md.ID == j.media.ID && md.SHA256 == j.media.SHA256 {
				return already, true
			}
		}
	}
	return 0, false
}

// targetMoment reads j's moment from the target for settle, asking again
// through passing trouble as every request of the push does: a look-up
// lost on a bad link must not turn an op the target already holds into a
// refusal.
func (p *pusher) targetMoment(ctx context.Context, j job) (*api.Moment, error) {
	var m *api.Moment
	err := p.retrying(ctx, 0, p.askingAgain(j), func(ctx context.Context) (err error) {
		m, err = p.target.Moment(ctx, j.moment)
		return err
	})
	return m, err
}

func created(ok bool) outcome {
	if ok {
		return sent
	}
	return already
}

// send makes one attempt at a job, for the member of its op.
func (p *pusher) send(ctx context.Context, j job) (outcome, error) {
	t := p.target
	if j.member != "" && (p.opts.PushersOwn == nil || !p.opts.PushersOwn(j.member)) {
		ctx = client.WithMember(ctx, j.member)
	}
	switch {
	case j.create != nil:
		_, ok, err := t.CreateMoment(ctx, *j.create)
		return created(ok), err
	case j.edit != nil:
		_, _, err := t.EditMoment(ctx, j.id, *j.edit)
		// An edit is idempotent by its values: the target tells no
		// difference, so it counts as sent.
		return sent, err
	case j.delete:
		ok, err := t.DeleteMoment(ctx, j.id)
		return created(ok), err
	case j.restore:
		_, ok, err := t.RestoreMoment(ctx, j.id)
		return created(ok), err
	case j.words != nil:
		_, ok, err := t.PutWords(ctx, j.id, *j.words)
		return created(ok), err
	case j.media != nil:
		return p.sendMedia(ctx, j.media)
	case j.turn != nil:
		_, ok, err := t.ImportTurn(ctx, *j.turn)
		return created(ok), err
	case j.keep != nil:
		_, ok, err := t.KeepPhrase(ctx, *j.keep)
		return created(ok), err
	case j.unkeep != "":
		ok, err := t.RemovePhrase(ctx, j.unkeep)
		return created(ok), err
	case j.ask != nil:
		s := j.ask.start
		if s.Job != "" {
			_, ok, err := t.StartJob(ctx, s.MomentID, s.Job)
			return created(ok), err
		}
		_, ok, err := t.StartTurn(ctx, s.MomentID, api.StartTurnRequest{ClientRequestID: j.ask.reqID, Mode: api.ModePractical})
		return created(ok), err
	}
	return 0, fmt.Errorf("push: op %d has nothing to send", j.seq)
}

// sendMedia streams one blob of the source with its Content-Digest.
func (p *pusher) sendMedia(ctx context.Context, m *mirror.MediaPut) (outcome, error) {
	sum, err := hexSum(m.SHA256)
	if err != nil {
		return 0, api.Errorf(api.CodeBadDigest, "%v", err)
	}
	// While the source is asked, and each time its bytes are read, the
	// push waits on the source, not the target: the target's watch rests.
	tw := watchOf(ctx)
	tw.end()
	f, err := p.src.Media(ctx, *m)
	tw.begin()
	if err != nil && ctx.Err() == nil && p.photoPurged(ctx, m) {
		return already, nil // its moment removed for good (purged.go)
	}
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var ok bool
	up, canResume := p.target.(Uploader)
	ra, isFile := f.(io.ReaderAt)
	if canResume && isFile {
		// A folder's blob: the resumable path when the target offers it
		// (client.UploadMedia falls back to PUT), so a dropped link
		// resumes where it stopped rather than at byte 0.
		_, ok, err = up.UploadMedia(ctx, client.UploadMedia{ID: m.ID, MomentID: m.MomentID, Role: m.Role,
			ContentType: m.ContentType, From: ra, Size: m.Size, SHA256: sum})
	} else {
		_, ok, err = p.target.PutMedia(ctx, client.PutMedia{ID: m.ID, MomentID: m.MomentID, Role: m.Role,
			ContentType: m.ContentType, Body: &sourceBody{r: f, target: tw}, Size: m.Size, SHA256: sum})
	}
	if d, isChecked := f.(interface{ Damaged() error }); isChecked && d.Damaged() != nil {
		return 0, d.Damaged()
	}
	if err == nil && ok {
		p.mu.Lock()
		p.stats.Bytes += m.Size
		p.mu.Unlock()
	}
	return created(ok), err
}

// sourceBody is the source's bytes sent to the target: while a Read waits
// on the source, the target's watch rests.
type sourceBody struct {
	r      io.Reader
	target *watch
}

func (b *sourceBody) Read(p []byte) (int, error) {
	b.target.end()
	defer b.target.begin()
	return b.r.Read(p)
}

// healthTries bounds how often a push asks the target who it is.
const healthTries = 8

// health asks the target who it is, and checks the token (health needs
// none), through passing trouble.
func (p *pusher) health(ctx context.Context) (*api.Health, error) {
	var h *api.Health
	err := p.retrying(ctx, healthTries, nil, func(ctx context.Context) (err error) {
		if h, err = p.target.Health(ctx); err == nil {
			err = p.target.CheckToken(ctx, h.Seq)
		}
		return err
	})
	switch {
	case err == nil:
		return h, nil
	case errors.Is(err, errBadToken), errors.Is(err, ErrStalled), errors.Is(err, ErrGaveUp):
		return nil, fmt.Errorf("push: %w", err)
	case ctx.Err() != nil:
		return nil, ctx.Err()
	}
	return nil, fmt.Errorf("push: the target engine: %w", err)
}

// askUnfinished starts on the target, once the whole log is sent, the
// readings the source started but never finished (no reading to copy):
// practical turns by their request id, jobs by their job id. A quick
// recall's unfinished turn cannot be asked again as it was (a recall picks
// its phrases when it starts) and is listed as not moved.
func (p *pusher) askUnfinished(dispatch func(job) error) error {
	turns := make([]pendingTurn, 0, len(p.pending))
	for _, t := range p.pending {
		turns = append(turns, t)
	}
	slices.SortFunc(turns, func(a, b pendingTurn) int { return cmp.Compare(a.seq, b.seq) })
	jobs := map[string]bool{}
	for i := range turns {
		t := &turns[i]
		j := job{seq: t.seq, kind: KindAsked, id: t.start.ID, moment: t.start.MomentID, ask: t, member: t.member}
		switch {
		case t.start.Recall != "":
			p.mu.Lock()
			p.stats.Unsettled = append(p.stats.Unsettled, t.start.ID)
			p.mu.Unlock()
			p.refuse(j, "a quick recall's reading that was never finished cannot be asked again as it was")
			continue
		case t.start.Job != "" && jobs[t.start.Job]:
			p.markDone(t.seq, 0)
			continue
		case t.start.Job != "":
			jobs[t.start.Job] = true
		}
		if err := dispatch(j); err != nil {
			return err
		}
	}
	return nil
}

// editRequestID is the request id an edit is pushed with: its own, else
// "edit:" and 32 hex digits of the SHA-256 of the op as logged (its time,
// author and data), the same on every run of every push of that log.
func editRequestID(r *oplog.Record) string {
	if r.RequestID != "" {
		return r.RequestID
	}
	h := sha256.New()
	fmt.Fprintf(h, "%d\x00%s\x00%s\x00", r.At.UnixNano(), r.Author, r.Member)
	h.Write(r.Data)
	return "edit:" + hex.EncodeToString(h.Sum(nil)[:16])
}
