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
// than lost; and no turn start, job or import takes the turns one family
// member asked for on a moment past api.MaxTurnsPerMoment, or, on another
// member's moment, api.MaxOthersTurnsPerMoment (roomForTurns).

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

// roomForTurns refuses, with too_many_turns, n more turns on a moment
// that the asker may not add to. Any family member may ask for readings
// of any moment, but each member's turns on it are counted apart
// (mirror.TurnsBy), so that another member's readings never use up the
// room of the moment's own member: the moment's member (with the turns
// the engine started itself) and each admin may hold
// api.MaxTurnsPerMoment turns of their own on it; any other member
// api.MaxOthersTurnsPerMoment. The caller holds the moment's key, so
// that two starts cannot both take the last place.
func (e *Engine) roomForTurns(ctx context.Context, momentID string, n int) error {
	if err := e.awaitFold(ctx); err != nil {
		return err
	}
	refs, err := e.mirror.MomentRefs(ctx, momentID)
	if isNotFound(err) {
		return notFound("moment", momentID)
	}
	if err != nil {
		return err
	}
	a := actorOf(ctx)
	who := a.member()
	if who == "" {
		who = refs.Owner // the engine's own turns are the moment's member's
	}
	own := who == refs.Owner || a.Admin
	most := api.MaxTurnsPerMoment
	if !own {
		most = api.MaxOthersTurnsPerMoment
	}
	have, err := e.mirror.TurnsBy(ctx, momentID, who)
	if err != nil {
		return err
	}
	if have+n <= most {
		return nil
	}
	if own {
		return api.Errorf(api.CodeTooManyTurns, "moment %s already holds %d readings asked for by its own family member, and a moment holds at most %d of theirs; nothing was started (capture the moment again to read it anew)", momentID, have, most)
	}
	return api.Errorf(api.CodeTooManyTurns, "you have already asked for %d readings of moment %s, which another family member added; each family member may ask for at most %d readings of someone else's moment, so that its own member always has room for theirs; nothing was started", have, momentID, most)
}
