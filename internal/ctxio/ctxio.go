// Package ctxio gives streams a context: a copy of a large file stops
// when the request or the command that asked for it ends.
package ctxio

import (
	"context"
	"io"
)

// Reader returns r, ending with ctx's error once ctx is done.
func Reader(ctx context.Context, r io.Reader) io.Reader { return &reader{ctx: ctx, r: r} }

type reader struct {
	ctx context.Context
	r   io.Reader
}

func (c *reader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
