package engine

import (
	"context"

	"github.com/sparkfamily/spark/engine/api"
)

// Full-text search [extension]: GET /v1/search (engine/server/search.go),
// answered from the mirror's FTS5 index of captions, readings and kept
// phrases (engine/mirror/search.sql), so it needs no network beyond the
// engine itself.

// Search finds the live moments whose caption, readings or kept phrases
// hold every word of q (each word as a prefix, case and accents aside), up
// to limit moments (0 is api.DefaultPageLimit), grouped as
// mirror.SearchMoments does. A q without a word finds nothing.
func (e *Engine) Search(ctx context.Context, q string, limit int) (*api.SearchResults, error) {
	if limit == 0 {
		limit = api.DefaultPageLimit
	}
	if err := checkLimit(limit, api.MaxPageLimit); err != nil {
		return nil, err
	}
	if err := e.awaitFold(ctx); err != nil {
		return nil, err
	}
	return e.mirror.SearchMomentsWithin(ctx, q, limit, PageBytes, momentSize, func(ctx context.Context, id string) (*api.Moment, error) {
		mo, err := e.Moment(ctx, id)
		if api.ErrorCode(err) == api.CodeNotFound {
			return nil, nil
		}
		return mo, err
	})
}
