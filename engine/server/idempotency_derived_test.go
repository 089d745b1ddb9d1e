package server_test

import (
	"fmt"
	"log/slog"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sparkfamily/spark/engine"
	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/enginetest"
)

// The contract's idempotency table gives a job's turn i the request id
// "<job id>:<i>" and a quick recall's turn "<recall id>:turn". They are
// request ids like any other: the turn carries it as its
// client_request_id, the log line of its turn.start too, a repeat of the
// job or recall answers the same turns, and any other write that names one
// is refused with request_id_reused, before and after a rebuild.

// opLines counts the log's lines by op.
func opLines(t *testing.T, e *enginetest.Engine) map[string]int {
	t.Helper()
	n := map[string]int{}
	for _, op := range []string{api.OpMomentCreate, api.OpTurnStart, api.OpTurnFinish, api.OpPhraseKeep} {
		n[op] = e.OpCount(t, op)
	}
	return n
}

// wantReused checks that each write naming a derived request id is refused
// with request_id_reused and writes nothing.
func wantReused(t *testing.T, e *enginetest.Engine, momentID, id string) {
	t.Helper()
	before := opLines(t, e)
	call(t, e, "POST", "/v1/moments", fmt.Sprintf(`{"client_request_id":%q,"kind":"note"}`, id)).wantError(t, http.StatusConflict, api.CodeRequestIDReused)
	call(t, e, "POST", "/v1/moments/"+momentID+"/turns", fmt.Sprintf(`{"client_request_id":%q,"mode":"practical"}`, id)).wantError(t, http.StatusConflict, api.CodeRequestIDReused)
	if len(id) <= api.MaxJobIDLen {
		call(t, e, "POST", "/v1/moments/"+momentID+"/jobs", fmt.Sprintf(`{"id":%q}`, id)).wantError(t, http.StatusConflict, api.CodeRequestIDReused)
	}
	call(t, e, "POST", "/v1/recalls", fmt.Sprintf(`{"id":%q}`, id)).wantError(t, http.StatusConflict, api.CodeRequestIDReused)
	if diff := cmp.Diff(before, opLines(t, e)); diff != "" {
		t.Errorf("refused writes naming %s wrote ops:\n%s", id, diff)
	}
}

// turnStartRequestIDs lists the client_request_id of every turn.start line.
func turnStartRequestIDs(t *testing.T, e *enginetest.Engine) []string {
	t.Helper()
	var page api.OpsPage
	call(t, e, "GET", "/v1/ops?limit=1000", nil).want(t, http.StatusOK, &page)
	var ids []string
	for _, op := range page.Ops {
		if op.Op == api.OpTurnStart {
			ids = append(ids, op.ClientRequestID)
		}
	}
	return ids
}

func TestIdempotency_DerivedRequestIDs(t *testing.T) {
	dir := t.TempDir()
	e := enginetest.Start(t, enginetest.WithDir(dir), enginetest.WithoutSeat())
	m := createMoment(t, e, api.CreateMomentRequest{})
	call(t, e, "POST", "/v1/phrases", `{"text":"morning fog"}`).want(t, http.StatusCreated, nil)

	var job, jobAgain api.JobResponse
	call(t, e, "POST", "/v1/moments/"+m.ID+"/jobs", `{"id":"hq-9"}`).want(t, http.StatusAccepted, &job)
	if len(job.Turns) != 1 || job.Turns[0].ClientRequestID != "hq-9:0" || job.Turns[0].ID != "hq-9:0" {
		t.Fatalf("job turns %+v, want one turn with client_request_id hq-9:0", job.Turns)
	}
	var rc, rcAgain api.RecallResponse
	call(t, e, "POST", "/v1/recalls", `{"id":"rc-1"}`).want(t, http.StatusCreated, &rc)
	if rc.Turn.ClientRequestID != "rc-1:turn" || rc.Turn.ID != "rc-1:turn" {
		t.Fatalf("recall turn %+v, want client_request_id rc-1:turn", rc.Turn)
	}
	if got, want := turnStartRequestIDs(t, e), []string{"hq-9:0", "rc-1:turn"}; !cmp.Equal(got, want) {
		t.Errorf("turn.start lines carry request ids %q, want %q", got, want)
	}

	check := func(t *testing.T) {
		before := opLines(t, e)
		call(t, e, "POST", "/v1/moments/"+m.ID+"/jobs", `{"id":"hq-9"}`).want(t, http.StatusOK, &jobAgain)
		if jobAgain.Created || !cmp.Equal(turnIDs(jobAgain.Turns), turnIDs(job.Turns)) || jobAgain.Turns[0].ClientRequestID != "hq-9:0" {
			t.Errorf("repeated job %+v, want the same turns as %+v", jobAgain, job)
		}
		call(t, e, "POST", "/v1/recalls", `{"id":"rc-1"}`).want(t, http.StatusOK, &rcAgain)
		if rcAgain.Created || rcAgain.Moment.ID != rc.Moment.ID || rcAgain.Turn.ID != rc.Turn.ID || rcAgain.Turn.ClientRequestID != "rc-1:turn" {
			t.Errorf("repeated recall %+v, want moment %s and turn rc-1:turn", rcAgain, rc.Moment.ID)
		}
		if diff := cmp.Diff(before, opLines(t, e)); diff != "" {
			t.Errorf("repeats wrote ops:\n%s", diff)
		}
		wantReused(t, e, m.ID, "hq-9:0")
		wantReused(t, e, m.ID, "rc-1:turn")
		var tr api.TurnResponse
		call(t, e, "GET", "/v1/turns/hq-9:0", nil).want(t, http.StatusOK, &tr)
		if tr.Turn.ClientRequestID != "hq-9:0" {
			t.Errorf("GET the job's turn: client_request_id %q, want hq-9:0", tr.Turn.ClientRequestID)
		}
	}
	t.Run("Repeated", check)

	// A job or recall whose derived request id is already taken is refused
	// whole: nothing of it is written.
	createMoment(t, e, api.CreateMomentRequest{ClientRequestID: "hq-10:0"})
	createMoment(t, e, api.CreateMomentRequest{ClientRequestID: "rc-2:turn"})
	before := opLines(t, e)
	ae := call(t, e, "POST", "/v1/moments/"+m.ID+"/jobs", `{"id":"hq-10"}`).wantError(t, http.StatusConflict, api.CodeRequestIDReused)
	t.Logf("job hq-10: %s", ae.Message)
	ae = call(t, e, "POST", "/v1/recalls", `{"id":"rc-2"}`).wantError(t, http.StatusConflict, api.CodeRequestIDReused)
	t.Logf("recall rc-2: %s", ae.Message)
	if diff := cmp.Diff(before, opLines(t, e)); diff != "" {
		t.Errorf("refused job and recall wrote ops:\n%s", diff)
	}

	// The request memory is rebuilt from the log whole.
	e.Close()
	if err := engine.Rebuild(t.Context(), dir, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	e = enginetest.Start(t, enginetest.WithDir(dir), enginetest.WithoutSeat())
	t.Run("AfterRebuild", check)
}

func turnIDs(ts []api.Turn) []string {
	var ids []string
	for _, t := range ts {
		ids = append(ids, t.ID)
	}
	return ids
}
