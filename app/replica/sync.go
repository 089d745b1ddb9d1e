package replica

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/mirror"
	"github.com/sparkfamily/spark/engine/oplog"
)

// Engine is what a replica needs of the engine it copies; *client.Client
// is one.
type Engine interface {
	BaseURL() string
	Health(ctx context.Context) (*api.Health, error)
	Ops(ctx context.Context, after uint64, limit int) ([]api.Op, *uint64, error)
	GetMedia(ctx context.Context, id string) (io.ReadCloser, error)
}

// ErrMustRebuild matches (errors.Is) the errors of a replica that the
// engine's log no longer continues: its log is shorter than the replica's
// cursor or differs at it. Rebuild pulls it again from seq 0.
var ErrMustRebuild = errors.New("replica: the engine's log does not continue this computer's copy")

// ErrBadPage matches (errors.Is) the errors of a page of ops that does not
// fold (an op this Spark does not know, a gap or a repeat in seq): nothing
// of the page was kept.
var ErrBadPage = errors.New("replica: a page of the engine's ops does not fold")

// ErrShortLog matches (errors.Is) the error of an engine whose log ends
// before the seq its health claimed: the ops it served are kept, and the
// sync stops there.
var ErrShortLog = errors.New("replica: the engine's log ends before the seq it claims")

// Result says what a sync did.
type Result struct {
	// Engine is the engine's id.
	Engine string
	// Reset is set when the replica held another engine and was dropped.
	Reset bool
	// From and To are the replica's seq before and after; Head is the
	// engine's last seq when the sync ended (To == Head: caught up).
	From, To, Head uint64
	// Ops counts the ops folded, Pages the pages.
	Ops, Pages int
	// Copies counts the small copies fetched; Cached, those of live
	// moments on this computer after the sync; Missing, those that are
	// not (the cache is full).
	Copies, Cached, Missing int
	// Moments lists, once each and in the order of the ops, the moments
	// the folded ops created, edited, deleted, gave a file or a reading
	// (started or finished): what a window showing them reads again.
	Moments []string
}

// CaughtUp reports whether the replica reached the engine's head.
func (r Result) CaughtUp() bool { return r.To >= r.Head }

// Sync pulls the engine's new ops into the replica and fetches the small
// copies it lacks. It stops at the first error, with the replica at the end
// of the last whole page folded.
func (r *Replica) Sync(ctx context.Context, eng Engine) (Result, error) {
	r.syncMu.Lock()
	defer r.syncMu.Unlock()
	return r.sync(ctx, eng, false)
}

// Rebuild drops the replica and pulls the engine's whole log again from
// seq 0, with the small copies.
func (r *Replica) Rebuild(ctx context.Context, eng Engine) (Result, error) {
	r.syncMu.Lock()
	defer r.syncMu.Unlock()
	return r.sync(ctx, eng, true)
}

func engineID(h *api.Health, eng Engine) string {
	if h.EngineID != "" {
		return h.EngineID
	}
	return "url:" + eng.BaseURL()
}

func (r *Replica) sync(ctx context.Context, eng Engine, rebuild bool) (Result, error) {
	var res Result
	h, err := eng.Health(ctx)
	if err != nil {
		return res, fmt.Errorf("replica: %w", err)
	}
	res.Engine, res.Head = engineID(h, eng), h.Seq
	st, err := r.State(ctx)
	if err != nil {
		return res, err
	}
	if rebuild || (st.Engine != "" && st.Engine != res.Engine) {
		if !rebuild {
			r.opts.Logger.Info("replica: the engine is another one; dropping this computer's copy and pulling it again", "had", st.Engine, "engine", res.Engine)
		}
		if err := r.reset(ctx); err != nil {
			return res, err
		}
		res.Reset = !rebuild
		st = State{}
	}
	res.From, res.To = st.Seq, st.Seq
	if err := r.pull(ctx, eng, st, &res); err != nil {
		return res, err
	}
	if err := r.fetchCopies(ctx, eng, &res); err != nil {
		return res, err
	}
	return res, nil
}

// pull folds the ops after the replica's cursor, one page per transaction.
func (r *Replica) pull(ctx context.Context, eng Engine, st State, res *Result) error {
	cursor := st.Seq
	if cursor > res.Head {
		return fmt.Errorf("%w: this computer's copy holds ops up to seq %d but the engine's log ends at seq %d (was the engine restored from an older backup?); rebuild this computer's copy to fetch it again from the start",
			ErrMustRebuild, cursor, res.Head)
	}
	// The first page starts one op early, so that the op folded last is
	// checked against the engine's.
	after, check := cursor, false
	if cursor > 0 {
		after, check = cursor-1, true
	}
	bound := false
	touched := NewTouched()
	defer func() {
		res.Moments = touched.Moments(ctx, func(ctx context.Context, id string) (string, error) {
			tu, err := r.Turn(ctx, id)
			if err != nil {
				return "", err
			}
			return tu.MomentID, nil
		})
	}()
	for {
		ops, next, err := eng.Ops(ctx, after, r.opts.PageLimit)
		if err != nil {
			return fmt.Errorf("replica: %w", err)
		}
		if len(ops) == 0 && next != nil {
			return fmt.Errorf("%w: the engine answered an empty page of ops after seq %d with more to follow", ErrBadPage, after)
		}
		if check {
			if len(ops) == 0 || ops[0].Seq != cursor {
				return fmt.Errorf("%w: this computer's copy holds ops up to seq %d but the engine no longer serves that op (its log was cut or replaced); rebuild this computer's copy to fetch it again from the start",
					ErrMustRebuild, cursor)
			}
			if d := opDigest(ops[0]); d != st.LastOp {
				return fmt.Errorf("%w: the engine's op %d is not the one this computer folded (its log was restored from an older backup or replaced); rebuild this computer's copy to fetch it again from the start",
					ErrMustRebuild, cursor)
			}
			ops, check = ops[1:], false
		}
		recs, err := records(ops, res.To)
		if err != nil {
			return err
		}
		last := st.LastOp
		if len(ops) > 0 {
			last = opDigest(ops[len(ops)-1])
		}
		caught := next == nil
		if len(recs) > 0 || caught || !bound {
			db := r.mirror()
			err = db.ApplyWith(ctx, recs, func(exec mirror.Exec) error {
				if err := setState(exec, "engine", res.Engine); err != nil {
					return err
				}
				if err := setState(exec, "last_op", last); err != nil {
					return err
				}
				if caught {
					return setState(exec, "synced_at", r.opts.Now().UTC().Format(time.RFC3339Nano))
				}
				return nil
			})
			r.dbMu.RUnlock()
			if err != nil {
				if len(recs) > 0 && ctx.Err() == nil {
					return fmt.Errorf("%w: the ops %d to %d: %w; nothing of this page was kept", ErrBadPage, recs[0].Seq, recs[len(recs)-1].Seq, err)
				}
				return fmt.Errorf("replica: %w", err)
			}
			bound = true
		}
		if len(recs) > 0 {
			touched.Add(ops)
			res.To = recs[len(recs)-1].Seq
			res.Ops += len(recs)
			res.Pages++
			st.LastOp = last
		}
		if caught {
			if res.To < res.Head {
				return fmt.Errorf("%w: it said its log reaches seq %d, but it served ops up to seq %d only; those were kept", ErrShortLog, res.Head, res.To)
			}
			res.Head = max(res.Head, res.To)
			return nil
		}
		after = *next
	}
}

// records turns a page of ops into log records, checking that their seqs
// follow on from seq last without a gap and that each op is one the engine
// would write (mirror.CheckRecord).
func records(ops []api.Op, last uint64) ([]oplog.Record, error) {
	recs := make([]oplog.Record, len(ops))
	for i, op := range ops {
		if op.Seq != last+1 {
			return nil, fmt.Errorf("%w: after seq %d the engine sent seq %d; nothing of this page was kept", ErrBadPage, last, op.Seq)
		}
		recs[i] = oplog.Record{Seq: op.Seq, At: op.At, Op: op.Op, RequestID: op.ClientRequestID, Author: op.Author, Member: op.Member, Data: op.Data}
		if err := mirror.CheckRecord(recs[i]); err != nil {
			return nil, fmt.Errorf("%w: %w; nothing of this page was kept", ErrBadPage, err)
		}
		last = op.Seq
	}
	return recs, nil
}

// opDigest is the SHA-256 (hex) of an op as served: its seq, time, name,
// request id and data, each length-prefixed.
func opDigest(op api.Op) string {
	h := sha256.New()
	var n [8]byte
	put := func(b []byte) {
		binary.BigEndian.PutUint64(n[:], uint64(len(b)))
		h.Write(n[:])
		h.Write(b)
	}
	binary.BigEndian.PutUint64(n[:], op.Seq)
	h.Write(n[:])
	put([]byte(op.At.UTC().Format(time.RFC3339Nano)))
	put([]byte(op.Op))
	put([]byte(op.ClientRequestID))
	put(op.Data)
	return hex.EncodeToString(h.Sum(nil))
}

// fetchCopies fetches the small copies of live moments the cache lacks,
// the most recently created moment first, until the cache is full.
func (r *Replica) fetchCopies(ctx context.Context, eng Engine, res *Result) error {
	var copies []mirror.LiveCopy
	var gone []string
	db := r.mirror()
	err := db.EachLiveCopy(ctx, func(c mirror.LiveCopy) error {
		copies = append(copies, c)
		return nil
	})
	if err == nil {
		// The copies of moments the engine removed for good (purged)
		// leave this computer too.
		err = db.EachGone(ctx, func(sha string) error {
			if r.copies.Has(sha) {
				gone = append(gone, sha)
			}
			return nil
		})
	}
	r.dbMu.RUnlock()
	if err != nil {
		return fmt.Errorf("replica: %w", err)
	}
	for _, sha := range gone {
		if err := r.copies.Remove(sha); err != nil {
			return err
		}
	}
	full := false
	for _, c := range copies {
		sha := c.Media.SHA256
		if r.copies.Has(sha) {
			res.Cached++
			continue
		}
		if full {
			res.Missing++
			continue
		}
		if err := r.fetchCopy(ctx, eng, c); err != nil {
			if errors.Is(err, ErrCacheFull) {
				full = true
				res.Missing++
				continue
			}
			return err
		}
		res.Copies++
		res.Cached++
	}
	return nil
}

func (r *Replica) fetchCopy(ctx context.Context, eng Engine, c mirror.LiveCopy) error {
	body, err := eng.GetMedia(ctx, c.Media.ID)
	if err != nil {
		return fmt.Errorf("replica: the small copy of moment %s: %w", c.MomentID, err)
	}
	defer body.Close()
	if err := r.copies.Put(c.Media.SHA256, c.Media.Size, body, c.CreatedAt); err != nil {
		var ce *ChecksumError
		if errors.As(err, &ce) {
			return fmt.Errorf("replica: the small copy %s of moment %s: %w", c.Media.ID, c.MomentID, err)
		}
		return err
	}
	return nil
}

// Touched gathers the moments that pages of ops touched, for the window's
// "moment" events: the replica's sync and the app's watch of its own
// engine read ops the same way. A turn.finish names only its turn: its
// moment is the turn.start's when that came first, else it is looked up
// at the end (Moments).
type Touched struct {
	turns map[string]string // turn id -> moment id, from turn.start
	// order holds moment ids and, for a turn to look up, "" and the turn
	// id in finished.
	order    []string
	finished map[int]string
}

// NewTouched returns an empty Touched.
func NewTouched() *Touched {
	return &Touched{turns: map[string]string{}, finished: map[int]string{}}
}

// Add notes the moments a page of ops touched.
func (t *Touched) Add(ops []api.Op) {
	for _, op := range ops {
		var d struct {
			ID       string `json:"id"`
			MomentID string `json:"moment_id"`
		}
		if json.Unmarshal(op.Data, &d) != nil {
			continue
		}
		switch op.Op {
		case api.OpMomentCreate, api.OpMomentEdit, api.OpMomentDelete, api.OpMomentRestore, api.OpMomentWords, api.OpMomentPurge:
			t.order = append(t.order, d.ID)
		case api.OpMediaPut:
			t.order = append(t.order, d.MomentID)
		case api.OpTurnStart:
			t.turns[d.ID] = d.MomentID
			t.order = append(t.order, d.MomentID)
		case api.OpTurnFinish:
			if m, ok := t.turns[d.ID]; ok {
				t.order = append(t.order, m)
			} else {
				t.finished[len(t.order)] = d.ID
				t.order = append(t.order, "")
			}
		}
	}
}

// Moments returns the moments touched, once each and in order, looking up
// the moment of a turn finished without its start with turnMoment (a turn
// it cannot find is left out).
func (t *Touched) Moments(ctx context.Context, turnMoment func(ctx context.Context, turnID string) (string, error)) []string {
	var out []string
	seen := map[string]bool{}
	for i, id := range t.order {
		if id == "" {
			m, err := turnMoment(ctx, t.finished[i])
			if err != nil {
				continue
			}
			id = m
		}
		if id != "" && !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}
