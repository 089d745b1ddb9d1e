package engine

import (
	"context"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/mirror"
)

// The caps on turns (api.MaxTurnTextBytes and the others) are applied
// here, for every way a turn reaches the log: a reading another engine
// finished (ImportTurn) is refused past them; a reading this engine's own
// seat returns is clipped to them (clipFinish), so that it is kept rather
// than lost; and no turn start, job or import takes a moment past
// api.MaxTurnsPerMoment (roomForTurns).

// clipMark ends a reading clipped to its cap, so that a reader sees it was
// cut.
const clipMark = " [...]"

// clipFinish clips a turn.finish this engine's runner is about to log to
// the caps.
func clipFinish(fin *mirror.TurnFinish) {
	if len(fin.Text) > api.MaxTurnTextBytes {
		fin.Text = api.ClipUTF8(fin.Text, api.MaxTurnTextBytes-len(clipMark)) + clipMark
	}
	if len(fin.Error) > api.MaxTurnErrorBytes {
		fin.Error = api.ClipUTF8(fin.Error, api.MaxTurnErrorBytes-len(clipMark)) + clipMark
	}
	fin.Seat = api.ClipUTF8(fin.Seat, api.MaxSeatBytes)
}

// clipSeat is the seat name a turn.start of this engine carries.
func clipSeat(name string) string { return api.ClipUTF8(name, api.MaxSeatBytes) }

// roomForTurns refuses, with too_many_turns, n more turns on a moment that
// cannot take them. The caller holds the moment's key, so that two starts
// cannot both take the last place.
func (e *Engine) roomForTurns(ctx context.Context, momentID string, n int) error {
	if err := e.awaitFold(ctx); err != nil {
		return err
	}
	have, err := e.mirror.TurnCount(ctx, momentID)
	if err != nil {
		return err
	}
	if have+n > api.MaxTurnsPerMoment {
		return api.Errorf(api.CodeTooManyTurns, "moment %s already holds %d readings, and a moment holds at most %d; nothing was started (capture the moment again to read it anew)", momentID, have, api.MaxTurnsPerMoment)
	}
	return nil
}
