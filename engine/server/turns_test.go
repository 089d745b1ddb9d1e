package server_test

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/enginetest"
)

// waitTurn polls GET /v1/turns/{id} until the turn is finished or failed.
func waitTurn(tb testing.TB, e *enginetest.Engine, id string) api.Turn {
	tb.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var tr api.TurnResponse
		call(tb, e, "GET", "/v1/turns/"+url.PathEscape(id), nil).want(tb, http.StatusOK, &tr)
		if tr.Turn.Status == api.TurnFinished || tr.Turn.Status == api.TurnFailed {
			return *tr.Turn
		}
		if time.Now().After(deadline) {
			tb.Fatalf("turn %s still %s after 10s", id, tr.Turn.Status)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestStartTurn(t *testing.T) {
	e := enginetest.Start(t)
	m := createMoment(t, e, api.CreateMomentRequest{Caption: "the sea"})
	var tr api.TurnResponse
	call(t, e, "POST", "/v1/moments/"+m.ID+"/turns", `{"client_request_id":"turn-1","mode":"practical"}`).want(t, http.StatusAccepted, &tr)
	if tr.Created == nil || !*tr.Created || tr.Turn.MomentID != m.ID || tr.Turn.Mode != api.ModePractical || tr.Turn.ClientRequestID != "turn-1" {
		t.Fatalf("turn %+v created %v", tr.Turn, tr.Created)
	}
	done := waitTurn(t, e, tr.Turn.ID)
	if done.Status != api.TurnFinished || done.Text == "" || done.FinishedAt == nil {
		t.Fatalf("finished turn %+v", done)
	}
	var mr api.MomentResponse
	call(t, e, "GET", "/v1/moments/"+m.ID, nil).want(t, http.StatusOK, &mr)
	if len(mr.Moment.Turns) != 1 || mr.Moment.Turns[0].ID != tr.Turn.ID {
		t.Fatalf("moment's turns %+v, want the turn", mr.Moment.Turns)
	}
	t.Run("UnknownMoment", func(t *testing.T) {
		call(t, e, "POST", "/v1/moments/"+newID()+"/turns", `{"client_request_id":"turn-2","mode":"practical"}`).
			wantError(t, http.StatusNotFound, api.CodeNotFound)
	})
	t.Run("UnknownTurn", func(t *testing.T) {
		call(t, e, "GET", "/v1/turns/nothing-here", nil).wantError(t, http.StatusNotFound, api.CodeNotFound)
	})
}

func TestStartTurn_NoSeatStaysQueued(t *testing.T) {
	e := enginetest.Start(t, enginetest.WithoutSeat())
	m := createMoment(t, e, api.CreateMomentRequest{})
	var tr api.TurnResponse
	call(t, e, "POST", "/v1/moments/"+m.ID+"/turns", `{"client_request_id":"turn-1","mode":"practical"}`).want(t, http.StatusAccepted, &tr)
	time.Sleep(50 * time.Millisecond)
	call(t, e, "GET", "/v1/turns/"+tr.Turn.ID, nil).want(t, http.StatusOK, &tr)
	if tr.Turn.Status != api.TurnQueued {
		t.Fatalf("turn status %q with no seat, want queued", tr.Turn.Status)
	}
}

func TestStartJob(t *testing.T) {
	e := enginetest.Start(t)
	m := createMoment(t, e, api.CreateMomentRequest{})
	var jr api.JobResponse
	call(t, e, "POST", "/v1/moments/"+m.ID+"/jobs", `{"id":"job-1"}`).want(t, http.StatusAccepted, &jr)
	if !jr.Created || jr.JobID != "job-1" || len(jr.Turns) != 1 || jr.Turns[0].ID != "job-1:0" || jr.Turns[0].Mode != api.ModeCareful {
		t.Fatalf("job answer %+v", jr)
	}
	waitTurn(t, e, "job-1:0")
	call(t, e, "POST", "/v1/moments/"+newID()+"/jobs", `{"id":"job-2"}`).wantError(t, http.StatusNotFound, api.CodeNotFound)
}

func TestStartRecall(t *testing.T) {
	e := enginetest.Start(t)
	call(t, e, "POST", "/v1/recalls", `{"id":"recall-0"}`).wantError(t, http.StatusConflict, api.CodeNoPhrases)
	call(t, e, "POST", "/v1/phrases", `{"text":"the light on the water"}`).want(t, http.StatusCreated, nil)
	var rr api.RecallResponse
	call(t, e, "POST", "/v1/recalls", `{"id":"recall-1"}`).want(t, http.StatusCreated, &rr)
	if !rr.Created || rr.Moment == nil || rr.Moment.Kind != api.KindRecall || rr.Turn == nil || rr.Turn.ID != "recall-1:turn" || rr.Turn.Mode != api.ModeRecall {
		t.Fatalf("recall answer %+v", rr)
	}
	waitTurn(t, e, "recall-1:turn")
}
