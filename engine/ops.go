package engine

import (
	"context"
	"errors"

	"github.com/sparkfamily/spark/api"
	"github.com/sparkfamily/spark/engine/oplog"
)

// DefaultOpsLimit is the page size of Ops when the caller gives none.
const DefaultOpsLimit = 100

// errPageFull stops a Scan once a page is full.
var errPageFull = errors.New("page full")

// Ops returns a page of the log itself: up to limit ops with seq above
// after, oldest first; next is the after of the following page, nil when
// no op follows. A limit of 0 is DefaultOpsLimit.
func (e *Engine) Ops(ctx context.Context, after uint64, limit int) ([]api.Op, *uint64, error) {
	if limit == 0 {
		limit = DefaultOpsLimit
	}
	if err := checkLimit(limit, api.MaxOpsLimit); err != nil {
		return nil, nil, err
	}
	ops := make([]api.Op, 0, min(limit, 64))
	more := false
	err := e.log.Scan(ctx, after, func(r oplog.Record) error {
		if len(ops) == limit {
			more = true
			return errPageFull
		}
		ops = append(ops, api.Op{Seq: r.Seq, At: r.At, Op: r.Op, ClientRequestID: r.RequestID, Data: r.Data})
		return nil
	})
	if err != nil && !errors.Is(err, errPageFull) {
		return nil, nil, err
	}
	var next *uint64
	if more {
		last := ops[len(ops)-1].Seq
		next = &last
	}
	return ops, next, nil
}
