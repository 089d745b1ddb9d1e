package engine

import (
	"context"
	"errors"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/mirror"
)

// MomentTurns [extension] gives a page of the turns of moment id, oldest
// first, following turn after ("" from the first): up to limit (0 is
// api.DefaultPageLimit, at most api.MaxPageLimit), fewer once they hold
// about PageBytes. next is the after of the following page, nil when no
// turn follows. A moment's own answer carries its first turns and, when
// more follow, their cursor (api.Moment.TurnsNext).
func (e *Engine) MomentTurns(ctx context.Context, id, after string, limit int) ([]api.Turn, *string, error) {
	id, err := requireULID("moment id", id)
	if err != nil {
		return nil, nil, err
	}
	if limit == 0 {
		limit = api.DefaultPageLimit
	}
	if err := checkLimit(limit, api.MaxPageLimit); err != nil {
		return nil, nil, err
	}
	if after != "" {
		if err := api.CheckTurnID(after); err != nil {
			return nil, nil, err
		}
	}
	if err := e.awaitFold(ctx); err != nil {
		return nil, nil, err
	}
	if err := e.momentExists(ctx, id); err != nil {
		return nil, nil, err
	}
	turns, next, err := e.mirror.MomentTurns(ctx, id, after, limit, PageBytes)
	if errors.Is(err, mirror.ErrBadCursor) {
		return nil, nil, api.Errorf(api.CodeBadID, "after %q is not a turn of moment %s; page on from the moment's turns_next, or a page's next", after, id)
	}
	if err != nil {
		return nil, nil, err
	}
	for i := range turns {
		e.run.overlay(&turns[i])
	}
	return turns, next, nil
}

// PhrasePage [extension] gives a page of the active marks, oldest first,
// kept after the cursor after (0 from the first): up to limit (0 is
// api.MaxPhraseLimit, the most). next is the after of the following page,
// nil when no mark follows.
func (e *Engine) PhrasePage(ctx context.Context, after uint64, limit int) ([]api.Phrase, *uint64, error) {
	if limit == 0 {
		limit = api.MaxPhraseLimit
	}
	if err := checkLimit(limit, api.MaxPhraseLimit); err != nil {
		return nil, nil, err
	}
	if err := e.awaitFold(ctx); err != nil {
		return nil, nil, err
	}
	return e.mirror.PhrasesAfter(ctx, after, limit)
}
