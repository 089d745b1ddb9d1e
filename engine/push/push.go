// Package push copies an engine's corpus to another engine by replaying the
// source's op log through the wire contract: every moment with
// its own id and request id, every media file by id with its SHA-256, every
// edit, delete and kept phrase, and every finished reading as it is (through
// the import extension, so the target's Pippa is never asked). It is
// `spark-engine push` and the app's Move; it owns the copy and its
// checkpoint, the client (engine/client) the talking.
//
// The source is an engine folder, its log read sequentially through a
// read-only open as fsck does (so it runs beside an app or engine that has
// the folder open), or an engine read through the contract (GET /v1/ops
// page by page, GET /v1/media/{id} checked against the SHA-256 its log
// records): see Source. Memory stays flat whatever the corpus holds. Every write it sends is
// idempotent on the target, so a run killed at any point and run again
// converges; a checkpoint (the source seq below which everything is known
// delivered) lets the next run skip what was done.
package push

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/sparkfamily/spark/engine"
	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/client"
	"github.com/sparkfamily/spark/engine/mirror"
	"github.com/sparkfamily/spark/engine/oplog"
	"github.com/sparkfamily/spark/internal/atomicfile"
	"github.com/sparkfamily/spark/internal/retry"
)

// Target is the engine a corpus is pushed to (*client.Client is one).
type Target interface {
	Health(ctx context.Context) (*api.Health, error)
	CheckToken(ctx context.Context, seq uint64) error
	CreateMoment(ctx context.Context, in api.CreateMomentRequest) (*api.Moment, bool, error)
	Moment(ctx context.Context, id string) (*api.Moment, error)
	Moments(ctx context.Context, limit int, before string) ([]api.Moment, *string, error)
	EditMoment(ctx context.Context, id string, in api.EditMomentRequest) (*api.Moment, bool, error)
	DeleteMoment(ctx context.Context, id string) (bool, error)
	RestoreMoment(ctx context.Context, id string) (*api.Moment, bool, error)
	PutWords(ctx context.Context, momentID string, w api.Words) (*api.Words, bool, error)
	PutMedia(ctx context.Context, m client.PutMedia) (*api.Media, bool, error)
	ImportTurn(ctx context.Context, in api.ImportTurnRequest) (*api.Turn, bool, error)
	StartTurn(ctx context.Context, momentID string, in api.StartTurnRequest) (*api.Turn, bool, error)
	StartJob(ctx context.Context, momentID, jobID string) ([]api.Turn, bool, error)
	KeepPhrase(ctx context.Context, in api.KeepPhraseRequest) (*api.Phrase, bool, error)
	RemovePhrase(ctx context.Context, id string) (bool, error)
}

var _ Target = (*client.Client)(nil)

// Uploader is a Target that sends media by the resumable path when the
// engine offers it (*client.Client is one): a push from a folder uses it.
type Uploader interface {
	UploadMedia(ctx context.Context, m client.UploadMedia) (*api.Media, bool, error)
}

var _ Uploader = (*client.Client)(nil)

// Options configure Run.
type Options struct {
	// Source is the engine folder to copy (it holds ops.log and media/),
	// when From is nil.
	Source string
	// From is the engine to copy, when it is not a folder (Remote).
	From Source
	// Target is the engine to copy to.
	Target Target
	// StateDir is where the checkpoint is kept, one file per source and
	// target engine, beside push.lock, which their saves hold; empty keeps
	// none (every run replays the whole log, which is still harmless).
	StateDir string
	// CheckpointEvery is how often, at most, the checkpoint is written
	// during a run (it is always written at the end); 0 is a second.
	CheckpointEvery time.Duration
	// Workers is how many moments are sent at once (ops of one moment
	// always go in log order); 0 is 4.
	Workers int
	// Progress, when set, is called now and then, and once at the end.
	Progress func(Stats)
	// Backoff paces retries of passing trouble; zero is 50 ms to 2 s.
	Backoff retry.Backoff
	// StallAfter ends the push (ErrStalled) when the source or the target
	// moves no byte for so long while the push waits on it: a request
	// that stalls is not asked again. 0 is DefaultStallAfter, a minute.
	StallAfter time.Duration
	// GiveUpAfter ends the push (ErrGaveUp) when a request to the source
	// or the target has met only passing trouble (5xx, 429, a connection
	// that fails) for so long, or would before its next attempt (a
	// Retry-After longer than that). 0 is DefaultGiveUpAfter, 10 minutes.
	// A remote source is asked 8 times at most, which is sooner.
	GiveUpAfter time.Duration
	// PushersOwn, when set, names the members of the source whose writes
	// go to the target as the target token's own (no Spark-Member): the
	// members that are a token rather than a person, such as the one the
	// app's own engine gives its token, whose moments are the pusher's
	// own. nil keeps every member as the source has it.
	PushersOwn func(member string) bool
	// Logger gets retries and refusals; nil is slog.Default().
	Logger *slog.Logger
}

// defaultWorkers is how many moments go at once unless told.
const defaultWorkers = 4

// Kind names what an op copies, for the counts.
type Kind string

// The kinds counted in Stats.
const (
	KindMoment  Kind = "moments"
	KindMedia   Kind = "media"
	KindEdit    Kind = "edits"
	KindDelete  Kind = "deletes"
	KindRestore Kind = "restores"
	KindWords   Kind = "words" // [extension] the words found in photos
	KindReading Kind = "readings"
	KindPhrase  Kind = "phrases"
	KindUnkeep  Kind = "phrase_removals"
	// KindAsked counts readings that were never finished on the source:
	// they are asked of the target's Pippa (the same request id, so a
	// repeat asks nothing more), since there is no reading to copy.
	KindAsked Kind = "readings_asked_again"
)

// Count is what happened to the ops of one kind.
type Count struct {
	Sent    int `json:"sent"`
	Already int `json:"already_there"`
	Refused int `json:"refused"`
}

// Refusal is one op the target refused, with its reason.
type Refusal struct {
	Seq    uint64 `json:"seq"`
	Kind   Kind   `json:"kind"`
	ID     string `json:"id"`
	Reason string `json:"reason"`
}

// maxRefusals bounds the refusals Stats lists (all are counted).
const maxRefusals = 50

// Stats is a push's progress and summary.
type Stats struct {
	SourceID  string         `json:"source_engine_id"`
	TargetID  string         `json:"target_engine_id"`
	LastSeq   uint64         `json:"source_seq"`   // the source log's last seq
	StartSeq  uint64         `json:"resumed_from"` // the checkpoint this run started after
	Done      uint64         `json:"done_seq"`     // every op through this seq is delivered
	Kinds     map[Kind]Count `json:"counts"`
	Refusals  []Refusal      `json:"refusals,omitempty"`
	Bytes     int64          `json:"media_bytes_sent"`
	Complete  bool           `json:"complete"`
	Retries   int            `json:"retries"`
	Unsettled []string       `json:"readings_not_moved,omitempty"`
	// Purged counts the moments the source removed for good, left out
	// (purged.go).
	Purged int `json:"purged_left_out,omitempty"`
}

func (s *Stats) clone() Stats {
	c := *s
	c.Kinds = make(map[Kind]Count, len(s.Kinds))
	for k, v := range s.Kinds {
		c.Kinds[k] = v
	}
	c.Refusals = append([]Refusal(nil), s.Refusals...)
	c.Unsettled = append([]string(nil), s.Unsettled...)
	return c
}

// ErrIncomplete is returned (wrapped) by Run when it finished reading the
// source but the target does not hold everything: some op was refused or a
// reading is still unfinished on the source.
var ErrIncomplete = errors.New("push: the target does not hold everything the source holds")

// Run pushes the corpus of opts.Source to opts.Target. It returns the
// summary, and an error when the push stopped (ctx, the target refusing the
// token, a source it cannot read) or wraps ErrIncomplete.
func Run(ctx context.Context, opts Options) (Stats, error) {
	if opts.Workers <= 0 {
		opts.Workers = defaultWorkers
	}
	if opts.Backoff.Base == 0 {
		opts.Backoff = retry.Backoff{Base: 50 * time.Millisecond, Cap: 2 * time.Second}
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.CheckpointEvery <= 0 {
		opts.CheckpointEvery = time.Second
	}
	if opts.StallAfter <= 0 {
		opts.StallAfter = DefaultStallAfter
	}
	if opts.GiveUpAfter <= 0 {
		opts.GiveUpAfter = DefaultGiveUpAfter
	}
	p := &pusher{opts: opts, stats: Stats{Kinds: map[Kind]Count{}}, pending: map[string]pendingTurn{}, done: newSeqSet(),
		lim: limits{peer: peerName(targetEngine, opts.Target), stallAfter: opts.StallAfter, giveUpAfter: opts.GiveUpAfter}}
	return p.run(ctx)
}

type pendingTurn struct {
	seq    uint64
	start  mirror.TurnStart
	reqID  string
	member string // who asked for it (its turn.start's member)
}

type pusher struct {
	opts   Options
	target Target
	src    Source
	lim    limits // of the requests to the target

	mu    sync.Mutex
	stats Stats
	// done holds the delivered seqs above base; base advances over them.
	base     uint64
	done     *seqSet
	fatal    error
	lastSave time.Time

	// inflight counts the jobs handed to workers and not yet done.
	inflight int

	// pending is the turns started but not yet finished in the log read so
	// far (only the reader touches it); pendingBytes is about their size.
	pending      map[string]pendingTurn
	pendingBytes int64

	// leftOut is the moments the source purged whose create this run left
	// out (guarded by mu; purged.go).
	leftOut map[string]bool
}

func (p *pusher) run(ctx context.Context) (Stats, error) {
	p.target = p.opts.Target
	h, err := p.health(ctx)
	if err != nil {
		return p.stats, err
	}
	p.src = p.opts.From
	if b, ok := p.src.(bounded); ok {
		b.bound(p.opts.StallAfter, p.opts.GiveUpAfter)
	}
	if p.src == nil {
		f, err := OpenFolder(p.opts.Source)
		if err != nil {
			return p.stats, err
		}
		p.src = f
	}
	defer p.src.Close()
	srcID, last, err := p.src.Describe(ctx)
	if err != nil {
		return p.stats, err
	}
	p.stats.SourceID, p.stats.TargetID = srcID, h.EngineID
	if srcID == h.EngineID {
		return p.stats, fmt.Errorf("push: the source is the target engine itself (%s); nothing to copy", srcID)
	}
	p.stats.LastSeq = last
	start, err := p.loadCheckpoint()
	if err != nil {
		return p.stats, err
	}
	if start > p.stats.LastSeq {
		// The source's log is shorter than the checkpoint says (a restore):
		// the checkpoint is not this log's; start over.
		start = 0
	}
	p.stats.StartSeq, p.base, p.stats.Done = start, start, start
	p.leftOut = map[string]bool{}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	queues := make([]chan job, p.opts.Workers)
	var wg sync.WaitGroup
	for i := range queues {
		queues[i] = make(chan job, 64)
		wg.Add(1)
		go func(q chan job) {
			defer wg.Done()
			for j := range q {
				if ctx.Err() != nil {
					continue
				}
				delivered, err := p.leaveOut(ctx, &j)
				if err == nil && !delivered {
					delivered, err = p.do(ctx, j)
				}
				if err != nil {
					p.stop(err)
					cancel()
				} else if delivered {
					p.markDone(j.seq, j.startSeq)
				}
				p.mu.Lock()
				p.inflight--
				p.mu.Unlock()
			}
		}(queues[i])
	}
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	// dispatch hands a job to the queue of its moment.
	dispatch := func(j job) error {
		p.mu.Lock()
		p.inflight++
		p.mu.Unlock()
		select {
		case queues[shard(j.moment, len(queues))] <- j:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	scanErr := p.src.Scan(ctx, start, func(r oplog.Record) error {
		select {
		case <-tick.C:
			p.report(false)
		default:
		}
		j, err := p.prepare(r)
		if err != nil {
			return err
		}
		if j.skip {
			if !j.held {
				p.markDone(r.Seq, 0)
			}
			return nil
		}
		if j.moment == "" {
			// A phrase op: after everything before it, alone.
			p.waitIdle(ctx)
			p.withoutLeftOut(&j)
			delivered, err := p.do(ctx, j)
			if err != nil {
				return err
			}
			if delivered {
				p.markDone(r.Seq, 0)
			}
			return nil
		}
		return dispatch(j)
	})
	if scanErr == nil {
		scanErr = p.askUnfinished(dispatch)
	}
	for _, q := range queues {
		close(q)
	}
	wg.Wait()
	p.mu.Lock()
	fatal := p.fatal
	p.mu.Unlock()
	p.save(true)
	switch {
	case fatal != nil:
		scanErr = fatal
	case scanErr == nil && ctx.Err() != nil:
		scanErr = ctx.Err()
	}
	if scanErr != nil {
		p.report(true)
		return p.snapshot(), fmt.Errorf("push: stopped at seq %d of %d: %w", p.snapshot().Done, p.stats.LastSeq, scanErr)
	}
	p.mu.Lock()
	refused := 0
	for _, c := range p.stats.Kinds {
		refused += c.Refused
	}
	p.stats.Complete = refused == 0
	p.mu.Unlock()
	p.report(true)
	st := p.snapshot()
	if !st.Complete {
		return st, fmt.Errorf("%w: %d op(s) refused or unfinished (see the refusals)", ErrIncomplete, refused)
	}
	return st, nil
}

// waitIdle waits until every job handed to the workers is done (or ctx
// ends).
func (p *pusher) waitIdle(ctx context.Context) {
	for {
		p.mu.Lock()
		n := p.inflight
		p.mu.Unlock()
		if n == 0 || ctx.Err() != nil {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

func shard(id string, n int) int {
	h := uint32(2166136261)
	for i := 0; i < len(id); i++ {
		h = (h ^ uint32(id[i])) * 16777619
	}
	return int(h % uint32(n))
}

func (p *pusher) stop(err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.fatal == nil {
		p.fatal = err
	}
}

// markDone records seq (and also, the turn.start of a reading, when not
// 0) as delivered and moves the checkpoint base over every delivered seq
// that follows it. A turn.start counts as delivered only with its
// turn.finish, so that a next run reads it again if the reading did not
// arrive.
func (p *pusher) markDone(seq, also uint64) {
	p.mu.Lock()
	p.done.add(seq)
	if also != 0 {
		p.done.add(also)
	}
	p.base = p.done.advance(p.base)
	p.mu.Unlock()
	p.save(false)
}

func (p *pusher) snapshot() Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stats.clone()
}

func (p *pusher) report(final bool) {
	if p.opts.Progress == nil {
		return
	}
	p.mu.Lock()
	p.stats.Done = p.safeSeqLocked()
	st := p.stats.clone()
	p.mu.Unlock()
	p.opts.Progress(st)
}

func (p *pusher) count(k Kind, c Count) {
	p.mu.Lock()
	defer p.mu.Unlock()
	cur := p.stats.Kinds[k]
	cur.Sent += c.Sent
	cur.Already += c.Already
	cur.Refused += c.Refused
	p.stats.Kinds[k] = cur
}

func (p *pusher) refuse(j job, reason string) {
	p.count(j.kind, Count{Refused: 1})
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.stats.Refusals) < maxRefusals {
		p.stats.Refusals = append(p.stats.Refusals, Refusal{Seq: j.seq, Kind: j.kind, ID: j.id, Reason: reason})
	}
	p.opts.Logger.Warn("push: refused by the target", "seq", j.seq, "kind", j.kind, "id", j.id, "reason", reason)
}

// sourceID reads the source folder's engine id without minting one (push
// writes nothing in the source folder). A folder that has none yet is
// named by its log's first record, which a replaced log does not share.
func sourceID(ctx context.Context, dir string, l *oplog.Log) (string, error) {
	b, err := atomicfile.ReadFile(filepath.Join(dir, engine.IdentityFile))
	if errors.Is(err, os.ErrNotExist) {
		h := sha256.New()
		err := l.Scan(ctx, 0, func(r oplog.Record) error {
			fmt.Fprintf(h, "%d %s %s %s ", r.Seq, r.At.UTC().Format(time.RFC3339Nano), r.Op, r.RequestID)
			h.Write(r.Data)
			return errFirst
		})
		if err != nil && !errors.Is(err, errFirst) {
			return "", fmt.Errorf("push: read the log of %s: %w", dir, err)
		}
		return "log-" + hex.EncodeToString(h.Sum(nil))[:26], nil
	}
	if err != nil {
		return "", fmt.Errorf("push: read the engine id of %s: %w", dir, err)
	}
	var f struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return "", fmt.Errorf("push: read the engine id of %s: %w", dir, err)
	}
	return f.ID, nil
}

var errFirst = errors.New("first record read")

func hexSum(s string) ([]byte, error) {
	if !api.ValidSHA256(s) {
		return nil, fmt.Errorf("the log names media by %q, which is not a SHA-256", s)
	}
	b, err := hex.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("the log names media by %q, which is not a SHA-256: %w", s, err)
	}
	return b, nil
}
