package engine

import (
	"context"
	"errors"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/oplog"
)

// DefaultOpsLimit is the page size of Ops when the caller gives none.
const DefaultOpsLimit = 100

// PageBytes is the byte budget of a page of ops or moments: a page stops
// before the item that would take it past this size, so that memory stays
// flat whatever the corpus holds, even below its limit (which is a
// maximum). A page always holds at least one item, so it is within
// PageBytes or is one item alone (every item is bounded: an op by the JSON
// body limit, a moment by its turns' budget).
const PageBytes = 1 << 20

// ErrPageFull is what the callback of EachOp or EachMoment returns once the
// page it builds has reached its byte budget; the item it was given is part
// of the page.
var ErrPageFull = errors.New("engine: the page is full")

// ErrPageOver is what the callback of EachOp or EachMoment returns for an
// item that does not fit in the page it builds (never the first): the item
// is not part of the page, and the next page starts with it.
var ErrPageOver = errors.New("engine: the item does not fit in the page")

// errPageFull stops a Scan once a page is full.
var errPageFull = errors.New("page full")

// opOverhead is what an op's fields besides its data and names add to
// its JSON.
const opOverhead = 128

// EachOp gives fn, oldest first, the ops of the log with seq above after,
// one page of them: up to limit ops (0 is DefaultOpsLimit), fewer when fn
// returns ErrPageFull. It returns the after of the following page, nil when
// no op follows. Any other error of fn stops the page and is returned.
func (e *Engine) EachOp(ctx context.Context, after uint64, limit int, fn func(api.Op) error) (*uint64, error) {
	if limit == 0 {
		limit = DefaultOpsLimit
	}
	if err := checkLimit(limit, api.MaxOpsLimit); err != nil {
		return nil, err
	}
	given, full, more := 0, false, false
	var last uint64
	err := e.opLog().Scan(ctx, after, func(r oplog.Record) error {
		if given == limit || full {
			more = true
			return errPageFull
		}
		err := fn(api.Op{Seq: r.Seq, At: r.At, Op: r.Op, ClientRequestID: r.RequestID, Author: r.Author, Member: r.MemberOf(), Data: r.Data})
		if errors.Is(err, ErrPageOver) && given > 0 {
			more = true
			return errPageFull
		}
		if err != nil && !errors.Is(err, ErrPageFull) {
			return err
		}
		full = err != nil
		given++
		last = r.Seq
		return nil
	})
	if err != nil && !errors.Is(err, errPageFull) {
		return nil, err
	}
	if !more {
		return nil, nil
	}
	return &last, nil
}

// Ops returns a page of the log itself, as EachOp gives it, cut at
// PageBytes of data.
func (e *Engine) Ops(ctx context.Context, after uint64, limit int) ([]api.Op, *uint64, error) {
	ops := make([]api.Op, 0, min(max(limit, 1), 64))
	size := 0
	next, err := e.EachOp(ctx, after, limit, func(op api.Op) error {
		n := len(op.Data) + len(op.ClientRequestID) + len(op.Author) + len(op.Member) + opOverhead
		if len(ops) > 0 && size+n > PageBytes {
			return ErrPageOver
		}
		ops = append(ops, op)
		if size += n; size >= PageBytes {
			return ErrPageFull
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return ops, next, nil
}
