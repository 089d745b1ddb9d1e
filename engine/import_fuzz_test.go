package engine

import (
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/sparkfamily/spark/engine/api"
)

// FuzzImportTurn runs any JSON body of POST /v1/import/turns through the
// engine as a device token would send it (issue 25: fuzz the import
// decoder). Whatever the body, the engine answers a contract error (never
// an internal one) and then writes nothing, or writes one reading that is
// the token's own moment's, within the caps, finished or failed.
func FuzzImportTurn(f *testing.F) {
	e := openEngine(f, f.TempDir())
	dad := WithActor(ctxT(f), Actor{Name: "dad"})
	mine, _, err := e.CreateMoment(dad, api.CreateMomentRequest{Kind: api.KindNote, Caption: "the gas bill"})
	if err != nil {
		f.Fatal(err)
	}
	theirs, _, err := e.CreateMoment(WithActor(ctxT(f), Actor{Name: "kid"}), api.CreateMomentRequest{Kind: api.KindNote, Caption: "homework"})
	if err != nil {
		f.Fatal(err)
	}
	seed := func(r api.ImportTurnRequest) {
		b, err := json.Marshal(r)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, true)
		f.Add(b, false)
	}
	ok := api.ImportTurnRequest{ID: "t-1", MomentID: mine.ID, Mode: api.ModePractical, Seat: "Pippa", ClientRequestID: "r-1", Status: api.TurnFinished, Text: "Pay it by Friday."}
	seed(ok)
	job := ok
	job.ID, job.ClientRequestID, job.Mode, job.Job, job.JobIndex = "j-1:0", "", api.ModeCareful, "j-1", 0
	seed(job)
	neg := job
	neg.JobIndex = -1
	seed(neg)
	derived := ok
	derived.ID = "hq-1:0"
	seed(derived)
	recall := ok
	recall.ID, recall.ClientRequestID, recall.Mode, recall.Recall = "rc-1:turn", "", api.ModeRecall, "rc-1"
	seed(recall)
	f.Add([]byte(`{"id":"x","moment_id":"`+mine.ID+`","mode":"practical","status":"failed","error":"`+string(make([]byte, 9000))+`"}`), true)
	f.Add([]byte(`{"job_index":1e30}`), true)
	f.Add([]byte(`not json`), false)

	f.Fuzz(func(t *testing.T, body []byte, own bool) {
		var req api.ImportTurnRequest
		if json.Unmarshal(body, &req) != nil {
			return // the server answers bad_json before the engine sees it
		}
		if own {
			req.MomentID = mine.ID
		} else if req.MomentID == "" {
			req.MomentID = theirs.ID
		}
		before := e.opLog().LastSeq()
		turn, _, err := e.ImportTurn(dad, req)
		if err != nil {
			ae, ok := api.AsError(err)
			if !ok || api.HTTPStatus(ae.Code) >= 500 {
				t.Fatalf("ImportTurn(%+v): %v; want a contract error a client can act on", req, err)
			}
			if after := e.opLog().LastSeq(); after != before {
				t.Fatalf("a refused import wrote ops %d to %d: %v", before+1, after, err)
			}
			return
		}
		if turn.MomentID != mine.ID {
			t.Fatalf("a device token imported onto moment %s, not its own %s", turn.MomentID, mine.ID)
		}
		if turn.Status != api.TurnFinished && turn.Status != api.TurnFailed {
			t.Fatalf("imported turn status %q", turn.Status)
		}
		if len(turn.Text) > api.MaxTurnTextBytes || len(turn.Error) > api.MaxTurnErrorBytes || len(turn.Seat) > api.MaxSeatBytes {
			t.Fatalf("imported turn past the caps: text %d, error %d, seat %d bytes", len(turn.Text), len(turn.Error), len(turn.Seat))
		}
		if !utf8.ValidString(turn.Text) || !utf8.ValidString(turn.Error) {
			t.Fatalf("imported turn holds invalid UTF-8")
		}
	})
}
