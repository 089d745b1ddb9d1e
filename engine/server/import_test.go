package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/sparkfamily/spark/engine"
	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/enginetest"
)

func TestImportTurn(t *testing.T) {
	e := enginetest.Start(t)
	m := createMoment(t, e, api.CreateMomentRequest{Caption: "a letter"})
	in := api.ImportTurnRequest{ID: newID(), MomentID: m.ID, Mode: api.ModePractical, Seat: "main",
		ClientRequestID: "turn-from-elsewhere", Status: api.TurnFinished, Text: "It asks you to call the bank."}
	var tr api.TurnResponse
	call(t, e, "POST", "/v1/import/turns", in).want(t, http.StatusCreated, &tr)
	if tr.Created == nil || !*tr.Created || tr.Turn.ID != in.ID || tr.Turn.Status != api.TurnFinished || tr.Turn.Text != in.Text ||
		tr.Turn.ClientRequestID != in.ClientRequestID || tr.Turn.Seat != "main" || tr.Turn.FinishedAt == nil {
		t.Fatalf("imported turn %+v created %v", tr.Turn, tr.Created)
	}
	ops := e.OpCount(t, api.OpTurnStart) + e.OpCount(t, api.OpTurnFinish)

	t.Run("RepeatWritesNothing", func(t *testing.T) {
		var again api.TurnResponse
		call(t, e, "POST", "/v1/import/turns", in).want(t, http.StatusOK, &again)
		if again.Created == nil || *again.Created || again.Turn.Text != in.Text {
			t.Fatalf("repeat %+v created %v", again.Turn, again.Created)
		}
		if n := e.OpCount(t, api.OpTurnStart) + e.OpCount(t, api.OpTurnFinish); n != ops {
			t.Fatalf("repeat wrote ops: %d, want %d", n, ops)
		}
	})
	t.Run("SameIDOtherContent", func(t *testing.T) {
		other := in
		other.Text = "Something else."
		call(t, e, "POST", "/v1/import/turns", other).wantError(t, http.StatusConflict, api.CodeImportConflict)
	})
	t.Run("RequestIDOfAnotherTurn", func(t *testing.T) {
		other := in
		other.ID = newID()
		call(t, e, "POST", "/v1/import/turns", other).wantError(t, http.StatusConflict, api.CodeRequestIDReused)
	})
	t.Run("BadInput", func(t *testing.T) {
		for name, c := range map[string]struct {
			edit   func(*api.ImportTurnRequest)
			status int
			code   string
		}{
			"Running":       {func(r *api.ImportTurnRequest) { r.Status = api.TurnRunning }, 400, api.CodeBadStatus},
			"BadMode":       {func(r *api.ImportTurnRequest) { r.Mode = "loud" }, 400, api.CodeBadMode},
			"BadTurnID":     {func(r *api.ImportTurnRequest) { r.ID = "no spaces" }, 400, api.CodeBadID},
			"BadMomentID":   {func(r *api.ImportTurnRequest) { r.MomentID = "nope" }, 400, api.CodeBadID},
			"UnknownMoment": {func(r *api.ImportTurnRequest) { r.MomentID = newID() }, 404, api.CodeNotFound},
		} {
			t.Run(name, func(t *testing.T) {
				r := in
				r.ID, r.ClientRequestID = newID(), "req-"+name
				c.edit(&r)
				call(t, e, "POST", "/v1/import/turns", r).wantError(t, c.status, c.code)
			})
		}
	})
	t.Run("ErrorRedacted", func(t *testing.T) {
		// The error an engine stores is redacted; so is one imported from
		// another (an older one, or one that echoed an upstream's words).
		failed := api.ImportTurnRequest{ID: newID(), MomentID: m.ID, Mode: api.ModePractical, Seat: "main",
			ClientRequestID: "failed-elsewhere", Status: api.TurnFailed,
			Error: "upstream said 401 for https://dad:hunter2@pippa.example/v1/chat?key=sk-0123456789abcdef"}
		call(t, e, "POST", "/v1/import/turns", failed).want(t, http.StatusCreated, &tr)
		for _, secret := range []string{"hunter2", "sk-0123456789abcdef"} {
			if strings.Contains(tr.Turn.Error, secret) {
				t.Errorf("imported turn's error %q holds %q", tr.Turn.Error, secret)
			}
			if ops := call(t, e, "GET", "/v1/ops?limit=1000", nil); strings.Contains(string(ops.Body), secret) {
				t.Errorf("the log holds %q", secret)
			}
		}
		if !strings.Contains(tr.Turn.Error, "[redacted]@pippa.example") {
			t.Errorf("imported turn's error = %q; want the URL redacted", tr.Turn.Error)
		}
		// The same import again is the same turn.
		var again api.TurnResponse
		call(t, e, "POST", "/v1/import/turns", failed).want(t, http.StatusOK, &again)
		if *again.Created {
			t.Errorf("a repeat of the import created a turn")
		}
	})
	t.Run("JobTurn", func(t *testing.T) {
		job := api.ImportTurnRequest{ID: "job-9:0", MomentID: m.ID, Mode: api.ModeCareful, Job: "job-9", Seat: "main",
			Status: api.TurnFailed, Error: "the reader was away"}
		call(t, e, "POST", "/v1/import/turns", job).want(t, http.StatusCreated, &tr)
		// The job id now answers for the imported job, without asking Pippa.
		var jr api.JobResponse
		call(t, e, "POST", "/v1/moments/"+m.ID+"/jobs", `{"id":"job-9"}`).want(t, http.StatusOK, &jr)
		if jr.Created || len(jr.Turns) != 1 || jr.Turns[0].ID != "job-9:0" || jr.Turns[0].Status != api.TurnFailed {
			t.Fatalf("job after import %+v", jr)
		}
	})
	if n := e.Pippa.Calls(); n != 0 {
		t.Fatalf("Pippa asked %d times by imports, want 0", n)
	}
	e.Close()
	if ok, err := engine.Fsck(t.Context(), e.Dir, testWriter{t}); err != nil || !ok {
		t.Fatalf("fsck after imports: ok %v err %v", ok, err)
	}
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) { w.t.Log(string(p)); return len(p), nil }
