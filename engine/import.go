package engine

import (
	"context"

	"github.com/sparkfamily/spark/api"
	"github.com/sparkfamily/spark/engine/mirror"
	"github.com/sparkfamily/spark/engine/oplog"
)

// ImportTurn [extension] writes a reading that another engine has already
// finished (or failed), as it is, keyed by the turn's own id: the log gets
// the turn.start and the turn.finish the other engine's log holds, in one
// batch, and Pippa is never asked. A repeat with the same content writes
// nothing (created false); the same turn id with other content is refused
// with import_conflict, and a request id that already started another turn
// with request_id_reused. The reading keeps its text; its error is
// redacted (pippa.Redact, with this engine's seats' secrets) as the
// engine's own are; its started_at and finished_at are the times this
// engine logged it.
func (e *Engine) ImportTurn(ctx context.Context, req api.ImportTurnRequest) (*api.Turn, bool, error) {
	if err := checkTurnID(req.ID); err != nil {
		return nil, false, err
	}
	// The error is kept in the log for good and served by /v1/ops: it
	// holds no secret, as the engine's own readings' errors do not.
	req.Error = e.run.redact(req.Error)
	momentID, err := requireULID("moment id", req.MomentID)
	if err != nil {
		return nil, false, err
	}
	req.MomentID = momentID
	switch req.Mode {
	case api.ModePractical, api.ModeCareful, api.ModeRecall:
	default:
		return nil, false, api.Errorf(api.CodeBadMode, "mode must be %q, %q or %q; got %q", api.ModePractical, api.ModeCareful, api.ModeRecall, req.Mode)
	}
	if req.Status != api.TurnFinished && req.Status != api.TurnFailed {
		return nil, false, api.Errorf(api.CodeBadStatus, "only a finished or failed reading can be imported; turn %q is %q (let its engine finish it, then import it)", req.ID, req.Status)
	}
	reqID := req.ClientRequestID
	switch {
	case req.Job != "":
		if err := api.CheckJobID(req.Job); err != nil {
			return nil, false, err
		}
		reqID = mirror.JobTurnRequestID(req.Job, req.JobIndex)
	case req.Recall != "":
		if err := api.CheckRequestID(req.Recall); err != nil {
			return nil, false, err
		}
		reqID = mirror.RecallTurnRequestID(req.Recall)
	}
	if reqID != "" {
		if err := api.CheckRequestID(reqID); err != nil {
			return nil, false, err
		}
	}
	unlock, err := e.keys.lock(ctx, keyOf("turn:", req.ID), reqKey(reqID))
	if err != nil {
		return nil, false, err
	}
	defer unlock()
	e.awaitFold(ctx)
	t, err := e.mirror.Turn(ctx, req.ID)
	switch {
	case err == nil:
		if !sameImport(t, req) {
			return nil, false, api.Errorf(api.CodeImportConflict, "this engine already holds turn %q with other content (moment %s, %s, %q); it was not changed", req.ID, t.MomentID, t.Status, clip(t.Text, 60))
		}
		turn := t.Turn
		return &turn, false, nil
	case !isNotFound(err):
		return nil, false, err
	}
	if reqID != "" {
		r, err := e.mirror.Request(ctx, reqID)
		switch {
		case err == nil:
			return nil, false, api.Errorf(api.CodeRequestIDReused, "the request id %q of turn %q already started another %s (turn %q) on this engine; nothing was imported", reqID, req.ID, kindWords[r.Kind], r.TurnID)
		case !isNotFound(err):
			return nil, false, err
		}
	}
	if err := e.momentExists(ctx, req.MomentID); err != nil {
		return nil, false, err
	}
	start, err := record(api.OpTurnStart, reqID, mirror.TurnStart{ID: req.ID, MomentID: req.MomentID, Mode: req.Mode,
		Seat: req.Seat, Job: req.Job, JobIndex: req.JobIndex, Recall: req.Recall})
	if err != nil {
		return nil, false, err
	}
	finish, err := record(api.OpTurnFinish, "", mirror.TurnFinish{ID: req.ID, Status: req.Status, Seat: req.Seat, Text: req.Text, Error: req.Error})
	if err != nil {
		return nil, false, err
	}
	if err := e.appendOps(ctx, []oplog.Record{start, finish}...); err != nil {
		return nil, false, err
	}
	turn, err := e.Turn(ctx, req.ID)
	return turn, true, err
}

// sameImport reports whether an imported turn matches the one held.
func sameImport(t *mirror.Turn, req api.ImportTurnRequest) bool {
	return t.MomentID == req.MomentID && t.Mode == req.Mode && t.Status == req.Status &&
		t.Text == req.Text && t.Error == req.Error && t.Seat == req.Seat &&
		t.Job == req.Job && t.JobIndex == req.JobIndex && t.Recall == req.Recall
}

// clip shortens s to at most n runes for a message.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "..."
}
