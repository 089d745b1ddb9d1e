package engine

import (
	"context"
	"fmt"
	"strings"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/mirror"
	"github.com/sparkfamily/spark/engine/oplog"
)

// recallPhrases is how many kept phrases a quick recall is assembled from.
const recallPhrases = 5

// recallKey serializes quick recalls, so that two recalls started together
// do not both take the same least recently recalled phrases.
var recallKey = lockKey{space: "recall"}

// StartTurn starts a practical turn on a moment. A repeat of the client
// request id returns the turn it started (running or finished, created
// false) and Pippa is not asked again.
func (e *Engine) StartTurn(ctx context.Context, momentID string, req api.StartTurnRequest) (*api.Turn, bool, error) {
	momentID, err := requireULID("moment id", momentID)
	if err != nil {
		return nil, false, err
	}
	if err := api.CheckRequestID(req.ClientRequestID); err != nil {
		return nil, false, err
	}
	if req.Mode != api.ModePractical {
		return nil, false, api.Errorf(api.CodeBadMode, "mode must be %q; got %q (careful readings are started as a job: POST /v1/moments/{id}/jobs)", api.ModePractical, req.Mode)
	}
	unlock, err := e.keys.lock(ctx, reqKey(req.ClientRequestID), momentKey(momentID))
	if err != nil {
		return nil, false, err
	}
	defer unlock()
	if r, found, err := e.request(ctx, req.ClientRequestID, mirror.RequestTurn); err != nil || found {
		if err != nil {
			return nil, false, err
		}
		if err := answers(ctx, r, req.ClientRequestID, ""); err != nil {
			return nil, false, err
		}
		t, err := e.Turn(ctx, r.TurnID)
		return t, false, err
	}
	if err := e.momentExists(ctx, momentID); err != nil {
		return nil, false, err
	}
	if err := e.roomForTurns(ctx, momentID, 1); err != nil {
		return nil, false, err
	}
	id := e.newID()
	rec, err := record(api.OpTurnStart, req.ClientRequestID, mirror.TurnStart{ID: id, MomentID: momentID, Mode: api.ModePractical})
	if err != nil {
		return nil, false, err
	}
	if err := e.appendTurns(ctx, 1, rec); err != nil {
		return nil, false, err
	}
	e.run.enqueue(id)
	t, err := e.Turn(ctx, id)
	return t, true, err
}

// request looks up what a request id produced: found false when it is new,
// request_id_reused when it produced another kind of write.
func (e *Engine) request(ctx context.Context, id, kind string) (mirror.Request, bool, error) {
	r, err := e.mirror.Request(ctx, id)
	if isNotFound(err) {
		return mirror.Request{}, false, nil
	}
	if err != nil {
		return mirror.Request{}, false, err
	}
	if r.Kind != kind {
		return mirror.Request{}, false, reused(id, r.Kind)
	}
	return r, true, nil
}

// answers refuses, with request_id_reused, to answer a repeat of request
// id (a turn's request id, a job or a recall id) with what r, its earlier
// use, produced when that was another member's write, or a write on
// another moment than momentID (when given): the repeat would be handed
// someone else's turns.
func answers(ctx context.Context, r mirror.Request, id, momentID string) error {
	if !actorOf(ctx).mayAnswer(r.Owner) {
		return api.Errorf(api.CodeRequestIDReused, "the id %q was already used by another family member's %s; every write needs its own id", id, kindWords[r.Kind])
	}
	if momentID != "" && r.MomentID != momentID {
		return api.Errorf(api.CodeRequestIDReused, "the id %q was already used for a %s on moment %s, not %s; every write needs its own id", id, kindWords[r.Kind], r.MomentID, momentID)
	}
	return nil
}

func (e *Engine) momentExists(ctx context.Context, id string) error {
	_, err := e.mirror.MomentRefs(ctx, id)
	if isNotFound(err) {
		return notFound("moment", id)
	}
	return err
}

// Turn returns turn id.
func (e *Engine) Turn(ctx context.Context, id string) (*api.Turn, error) {
	if err := api.CheckTurnID(id); err != nil {
		return nil, err
	}
	if err := e.awaitFold(ctx); err != nil {
		return nil, err
	}
	t, err := e.mirror.Turn(ctx, id)
	if isNotFound(err) {
		return nil, notFound("turn", id)
	}
	if err != nil {
		return nil, err
	}
	turn := t.Turn
	e.run.overlay(&turn)
	return &turn, nil
}

// overlayMoment shows the running turns of a moment as running.
func (e *Engine) overlayMoment(mo *api.Moment) *api.Moment {
	for i := range mo.Turns {
		e.run.overlay(&mo.Turns[i])
	}
	return mo
}

// StartJob starts a high-quality job on a moment: one careful turn per seat
// configured, turn i with the request id "<job id>:<i>" (also its turn id).
// A repeat returns the same turns (created false). With no seat configured
// the job has one turn, which waits queued for the first seat. A job whose
// turns' request ids are already taken is refused with request_id_reused.
func (e *Engine) StartJob(ctx context.Context, momentID, jobID string) ([]api.Turn, bool, error) {
	momentID, err := requireULID("moment id", momentID)
	if err != nil {
		return nil, false, err
	}
	if err := api.CheckJobID(jobID); err != nil {
		return nil, false, err
	}
	seats := e.Seats()
	n := max(len(seats), 1)
	ids := make([]string, n)
	keys := []lockKey{reqKey(jobID), momentKey(momentID)}
	for i := range n {
		ids[i] = mirror.JobTurnRequestID(jobID, i)
		keys = append(keys, reqKey(ids[i]))
	}
	unlock, err := e.keys.lock(ctx, keys...)
	if err != nil {
		return nil, false, err
	}
	defer unlock()
	if r, found, err := e.request(ctx, jobID, mirror.RequestJob); err != nil || found {
		if err != nil {
			return nil, false, err
		}
		if err := answers(ctx, r, jobID, ""); err != nil {
			return nil, false, err
		}
		turns, err := e.jobTurns(ctx, jobID)
		return turns, false, err
	}
	for i, id := range ids {
		if err := e.derivedFree(ctx, id, fmt.Sprintf("the job id %q", jobID), fmt.Sprintf("its turn %d", i)); err != nil {
			return nil, false, err
		}
	}
	if err := e.momentExists(ctx, momentID); err != nil {
		return nil, false, err
	}
	if err := e.roomForTurns(ctx, momentID, n); err != nil {
		return nil, false, err
	}
	recs := make([]oplog.Record, n)
	for i := range n {
		start := mirror.TurnStart{ID: ids[i], MomentID: momentID, Mode: api.ModeCareful, Job: jobID, JobIndex: i}
		if i < len(seats) {
			start.Seat = clipSeat(seats[i].Name)
		}
		if recs[i], err = record(api.OpTurnStart, ids[i], start); err != nil {
			return nil, false, err
		}
	}
	if err := e.appendTurns(ctx, len(recs), recs...); err != nil {
		return nil, false, err
	}
	e.run.enqueue(ids...)
	turns, err := e.jobTurns(ctx, jobID)
	return turns, true, err
}

// derivedFree refuses a request id derived from a job or recall id (owner,
// for the message) when an earlier write already used it.
func (e *Engine) derivedFree(ctx context.Context, id, owner, what string) error {
	r, err := e.mirror.Request(ctx, id)
	switch {
	case isNotFound(err):
		return nil
	case err != nil:
		return err
	}
	return api.Errorf(api.CodeRequestIDReused, "%s cannot be used: %s would have the request id %q, which was already used for a %s; choose another id", owner, what, id, kindWords[r.Kind])
}

func (e *Engine) jobTurns(ctx context.Context, jobID string) ([]api.Turn, error) {
	ts, err := e.mirror.JobTurns(ctx, jobID)
	if err != nil {
		return nil, err
	}
	turns := make([]api.Turn, len(ts))
	for i := range ts {
		turns[i] = ts[i].Turn
		e.run.overlay(&turns[i])
	}
	return turns, nil
}

// StartRecall starts a quick recall: a moment of kind recall assembled from
// the kept phrases least recently recalled, with an id the engine mints,
// and its turn, whose request id (and turn id) is "<recall id>:turn". A
// repeat returns the same moment and turn (created false). With no phrase
// kept it is refused with no_phrases; when "<recall id>:turn" is already
// taken, with request_id_reused.
func (e *Engine) StartRecall(ctx context.Context, recallID string) (*api.Moment, *api.Turn, bool, error) {
	if err := api.CheckRecallID(recallID); err != nil {
		return nil, nil, false, err
	}
	turnID := mirror.RecallTurnRequestID(recallID)
	unlock, err := e.keys.lock(ctx, reqKey(recallID), reqKey(turnID), recallKey)
	if err != nil {
		return nil, nil, false, err
	}
	defer unlock()
	if r, found, err := e.request(ctx, recallID, mirror.RequestRecall); err != nil || found {
		if err != nil {
			return nil, nil, false, err
		}
		if err := answers(ctx, r, recallID, ""); err != nil {
			return nil, nil, false, err
		}
		mo, err := e.Moment(ctx, r.MomentID)
		if err != nil {
			return nil, nil, false, err
		}
		t, err := e.Turn(ctx, r.TurnID)
		return mo, t, false, err
	}
	if err := e.derivedFree(ctx, turnID, fmt.Sprintf("the recall id %q", recallID), "its turn"); err != nil {
		return nil, nil, false, err
	}
	phrases, err := e.mirror.LeastRecalled(ctx, recallPhrases)
	if err != nil {
		return nil, nil, false, err
	}
	if len(phrases) == 0 {
		return nil, nil, false, api.Errorf(api.CodeNoPhrases, "no phrase is kept yet; keep a few words of a reading first, then ask for a recall")
	}
	momentID := e.newID()
	data := &mirror.RecallData{ID: recallID, TurnID: turnID}
	texts := make([]string, len(phrases))
	for i, p := range phrases {
		data.Phrases = append(data.Phrases, mirror.RecallPhrase{ID: p.ID, Text: p.Text})
		texts[i] = p.Text
	}
	create, err := record(api.OpMomentCreate, recallID, mirror.MomentCreate{
		ID: momentID, Kind: api.KindRecall, Caption: strings.Join(texts, "\n"), Recall: data,
	})
	if err != nil {
		return nil, nil, false, err
	}
	start, err := record(api.OpTurnStart, turnID, mirror.TurnStart{ID: turnID, MomentID: momentID, Mode: api.ModeRecall, Recall: recallID})
	if err != nil {
		return nil, nil, false, err
	}
	if err := e.appendTurns(ctx, 1, create, start); err != nil {
		return nil, nil, false, err
	}
	e.run.enqueue(turnID)
	mo, err := e.Moment(ctx, momentID)
	if err != nil {
		return nil, nil, false, err
	}
	t, err := e.Turn(ctx, turnID)
	return mo, t, true, err
}
