package engine

import (
	"context"
	"strings"

	"github.com/sparkfamily/spark/engine/api"
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
// engine's own are; its error_code is checked (api.CheckTurnErrorCode) and
// kept, or, for an import without one, derived from its error as for a
// log written before the code (mirror.FailCode); its started_at and
// finished_at are the times this engine logged it.
func (e *Engine) ImportTurn(ctx context.Context, req api.ImportTurnRequest) (*api.Turn, bool, error) {
	if err := api.CheckTurnID(req.ID); err != nil {
		return nil, false, err
	}
	if err := api.CheckTurnFields(req.Text, req.Error, req.Seat); err != nil {
		return nil, false, err
	}
	// The error is kept in the log for good and served by /v1/ops: it
	// holds no secret, as the engine's own readings' errors do not.
	// (Redaction may lengthen it a little: it stays within its cap.)
	req.Error = api.ClipUTF8(e.run.redact(req.Error), api.MaxTurnErrorBytes)
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
	if err := api.CheckTurnErrorCode(req.Status, req.ErrorCode); err != nil {
		return nil, false, err
	}
	if req.JobIndex < 0 || (req.Job == "" && req.JobIndex != 0) {
		return nil, false, api.Errorf(api.CodeBadID, "job_index %d of turn %q is not the index of a job's turn: it is 0 or more, and only with a job", req.JobIndex, req.ID)
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
	for _, id := range []struct{ field, id string }{{"turn id", req.ID}, {"request id", reqID}} {
		if !derivedFrom(id.id, req) {
			return nil, false, api.Errorf(api.CodeBadID, "the %s %q is in a namespace the engine derives from a job or quick recall (\"<job id>:<i>\", \"<recall id>:turn\") or a note (\"note:<moment id>:turn\"), and turn %q is not that one's; nothing was imported", id.field, id.id, req.ID)
		}
	}
	unlock, err := e.keys.lock(ctx, keyOf("turn:", req.ID), reqKey(reqID), momentKey(req.MomentID), reqKey(req.Job), reqKey(req.Recall))
	if err != nil {
		return nil, false, err
	}
	defer unlock()
	if err := e.awaitFold(ctx); err != nil {
		return nil, false, err
	}
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
	if err := e.mayChangeMoment(ctx, req.MomentID); err != nil {
		return nil, false, err
	}
	// A job or recall already on this engine takes the turn only when the
	// importing token made it, on this moment: an import never answers
	// for another token's job or recall, nor makes a later one answer
	// with a turn it did not start (the first producer of an id wins).
	// (A recall's moment copied by push was created with the recall id as
	// its request id, as the source's log holds it: that moment is the
	// recall's.)
	for _, parent := range []struct{ id, kind string }{{req.Job, mirror.RequestJob}, {req.Recall, mirror.RequestRecall}} {
		if parent.id == "" {
			continue
		}
		r, err := e.mirror.Request(ctx, parent.id)
		switch {
		case isNotFound(err):
			continue
		case err != nil:
			return nil, false, err
		case r.Kind != parent.kind && !(parent.kind == mirror.RequestRecall && r.Kind == mirror.RequestMoment):
			return nil, false, reused(parent.id, r.Kind)
		}
		if err := answers(ctx, r, parent.id, req.MomentID); err != nil {
			return nil, false, err
		}
	}
	if err := e.roomForTurns(ctx, req.MomentID, 1); err != nil {
		return nil, false, err
	}
	start, err := record(api.OpTurnStart, reqID, mirror.TurnStart{ID: req.ID, MomentID: req.MomentID, Mode: req.Mode,
		Seat: req.Seat, Job: req.Job, JobIndex: req.JobIndex, Recall: req.Recall})
	if err != nil {
		return nil, false, err
	}
	finish, err := record(api.OpTurnFinish, "", mirror.TurnFinish{ID: req.ID, Status: req.Status, Seat: req.Seat, Text: req.Text, Error: req.Error, ErrorCode: req.ErrorCode})
	if err != nil {
		return nil, false, err
	}
	if err := e.appendOps(ctx, []oplog.Record{start, finish}...); err != nil {
		return nil, false, err
	}
	turn, err := e.Turn(ctx, req.ID)
	return turn, true, err
}

// derivedFrom reports whether id, an imported turn's id or request id, is
// outside the namespaces the engine derives ids in, or is the id derived
// from the import's own job, recall or moment: "<job id>:<i>" only for turn
// i of that job, "<recall id>:turn" only for that recall's turn, and
// "note:<moment id>:turn" (the app's note readings, before their request
// ids were minted at random) only on that moment.
func derivedFrom(id string, req api.ImportTurnRequest) bool {
	if id == "" {
		return true
	}
	if base, ok := strings.CutSuffix(id, ":turn"); ok {
		return (req.Recall != "" && base == req.Recall) || base == "note:"+req.MomentID
	}
	if i := strings.LastIndexByte(id, ':'); i >= 0 && isDigits(id[i+1:]) {
		return req.Job != "" && id == mirror.JobTurnRequestID(req.Job, req.JobIndex)
	}
	return true
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// sameImport reports whether an imported turn matches the one held; an
// import without an error_code matches the code its error gives, as the
// fold gave it.
func sameImport(t *mirror.Turn, req api.ImportTurnRequest) bool {
	return t.MomentID == req.MomentID && t.Mode == req.Mode && t.Status == req.Status &&
		t.Text == req.Text && t.Error == req.Error && t.Seat == req.Seat &&
		t.ErrorCode == mirror.FailCode(req.Status, req.ErrorCode, req.Error) &&
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
