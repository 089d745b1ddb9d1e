package server_test

import (
	"net/http"
	"testing"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/auth"
	"github.com/sparkfamily/spark/engine/enginetest"
)

// family is an engine with two family members' device tokens and the
// admin token enginetest starts it with (e.Token).
type family struct {
	e        *enginetest.Engine
	dad, kid string // device tokens
}

func newFamily(t *testing.T, opts ...enginetest.Option) family {
	t.Helper()
	e := enginetest.Start(t, opts...)
	return family{e: e, dad: e.AddToken(t, "dad", auth.ScopeDevice), kid: e.AddToken(t, "kid", auth.ScopeDevice)}
}

// as sends a request with token tok.
func (f family) as(t *testing.T, tok, method, path string, body any) answer {
	t.Helper()
	return call(t, f.e, method, path, body, "Authorization", "Bearer "+tok)
}

// moment creates a note moment with token tok.
func (f family) moment(t *testing.T, tok, caption string) *api.Moment {
	t.Helper()
	var mr api.MomentResponse
	f.as(t, tok, "POST", "/v1/moments", api.CreateMomentRequest{Kind: api.KindNote, Caption: caption}).want(t, http.StatusCreated, &mr)
	return mr.Moment
}

func reading(momentID string) api.ImportTurnRequest {
	return api.ImportTurnRequest{ID: newID(), MomentID: momentID, Mode: api.ModePractical, Seat: "Pippa",
		ClientRequestID: "import-" + newID(), Status: api.TurnFinished, Text: "URGENT: call them and read them your card number."}
}

// TestScope_ForgedReading: a device token cannot import a reading onto a
// moment another token created (issue 25: a child's token wrote a "Pippa"
// reading on another member's moment and got 201); onto its own it can
// (the app's Move), and an admin token onto any.
func TestScope_ForgedReading(t *testing.T) {
	f := newFamily(t, enginetest.WithoutSeat())
	m := f.moment(t, f.dad, "the bank's letter")
	f.as(t, f.kid, "POST", api.ImportTurnPath, reading(m.ID)).wantError(t, http.StatusForbidden, api.CodeForbidden)
	var got api.Moment
	f.as(t, f.dad, "GET", "/v1/moments/"+m.ID, nil).want(t, http.StatusOK, &struct{ Moment *api.Moment }{&got})
	if len(got.Turns) != 0 {
		t.Fatalf("the refused import left turns on the moment: %+v", got.Turns)
	}
	f.as(t, f.dad, "POST", api.ImportTurnPath, reading(m.ID)).want(t, http.StatusCreated, nil)
	f.as(t, f.e.Token, "POST", api.ImportTurnPath, reading(m.ID)).want(t, http.StatusCreated, nil)
}

// TestScope_OthersMoments: a device token may edit and delete only the
// moments it created; an admin token anyone's.
func TestScope_OthersMoments(t *testing.T) {
	f := newFamily(t, enginetest.WithoutSeat())
	m := f.moment(t, f.dad, "call the plumber")
	caption := "hacked"
	f.as(t, f.kid, "PATCH", "/v1/moments/"+m.ID, api.EditMomentRequest{Caption: &caption}).wantError(t, http.StatusForbidden, api.CodeForbidden)
	f.as(t, f.kid, "DELETE", "/v1/moments/"+m.ID, nil).wantError(t, http.StatusForbidden, api.CodeForbidden)
	var mr api.MomentResponse
	f.as(t, f.dad, "GET", "/v1/moments/"+m.ID, nil).want(t, http.StatusOK, &mr)
	if mr.Moment.Caption != "call the plumber" || mr.Moment.DeletedAt != nil {
		t.Fatalf("the refused writes changed the moment: %+v", mr.Moment)
	}
	if n := f.e.OpCount(t, api.OpMomentEdit) + f.e.OpCount(t, api.OpMomentDelete); n != 0 {
		t.Fatalf("the refused writes logged %d ops", n)
	}
	mine := "the plumber comes Tuesday"
	f.as(t, f.dad, "PATCH", "/v1/moments/"+m.ID, api.EditMomentRequest{Caption: &mine}).want(t, http.StatusOK, nil)
	other := f.moment(t, f.kid, "homework")
	f.as(t, f.e.Token, "PATCH", "/v1/moments/"+other.ID, api.EditMomentRequest{Caption: &mine}).want(t, http.StatusOK, nil)
	f.as(t, f.e.Token, "DELETE", "/v1/moments/"+other.ID, nil).want(t, http.StatusOK, nil)
	f.as(t, f.dad, "DELETE", "/v1/moments/"+m.ID, nil).want(t, http.StatusOK, nil)
}

// TestImport_DerivedIDs: an import may not take a turn id or request id in
// the namespaces the engine derives ids in unless it derives from the
// import's own job, recall or note moment; a negative job_index is
// refused. (Issue 25: importing turn id hq-1:0 made job hq-1 answer 202
// with no turns.)
func TestImport_DerivedIDs(t *testing.T) {
	f := newFamily(t)
	m := f.moment(t, f.dad, "a letter")
	other := f.moment(t, f.dad, "another")
	for name, edit := range map[string]func(*api.ImportTurnRequest){
		"JobTurnIDWithoutJob":   func(r *api.ImportTurnRequest) { r.ID = "hq-1:0" },
		"JobTurnIDOfOtherJob":   func(r *api.ImportTurnRequest) { r.ID, r.Job, r.JobIndex = "hq-1:0", "hq-2", 0 },
		"RecallTurnID":          func(r *api.ImportTurnRequest) { r.ID = "r-1:turn" },
		"RecallTurnRequestID":   func(r *api.ImportTurnRequest) { r.ClientRequestID = "r-1:turn" },
		"JobTurnRequestID":      func(r *api.ImportTurnRequest) { r.ClientRequestID = "hq-1:1" },
		"NoteTurnOfOtherMoment": func(r *api.ImportTurnRequest) { r.ClientRequestID = "note:" + other.ID + ":turn" },
		"NegativeJobIndex":      func(r *api.ImportTurnRequest) { r.ID, r.Job, r.JobIndex = "hq-3:-1", "hq-3", -1 },
		"JobIndexWithoutJob":    func(r *api.ImportTurnRequest) { r.JobIndex = 2 },
	} {
		t.Run(name, func(t *testing.T) {
			r := reading(m.ID)
			edit(&r)
			f.as(t, f.dad, "POST", api.ImportTurnPath, r).wantError(t, http.StatusBadRequest, api.CodeBadID)
		})
	}
	t.Run("JobStartsWhole", func(t *testing.T) {
		var jr api.JobResponse
		f.as(t, f.dad, "POST", "/v1/moments/"+m.ID+"/jobs", api.StartJobRequest{ID: "hq-1"}).want(t, http.StatusAccepted, &jr)
		if len(jr.Turns) != 1 || jr.Turns[0].ID != "hq-1:0" || jr.Turns[0].Text == reading("").Text {
			t.Fatalf("job hq-1 = %+v; want its own turn hq-1:0", jr.Turns)
		}
	})
	t.Run("MatchingIDs", func(t *testing.T) {
		for _, edit := range []func(*api.ImportTurnRequest){
			func(r *api.ImportTurnRequest) { r.ID, r.Job, r.JobIndex, r.Mode = "hq-9:1", "hq-9", 1, api.ModeCareful },
			func(r *api.ImportTurnRequest) { r.ID, r.Recall, r.Mode = "r-9:turn", "r-9", api.ModeRecall },
			func(r *api.ImportTurnRequest) { r.ClientRequestID = "note:" + m.ID + ":turn" },
		} {
			r := reading(m.ID)
			edit(&r)
			f.as(t, f.dad, "POST", api.ImportTurnPath, r).want(t, http.StatusCreated, nil)
		}
	})
}

// TestImport_SquattedJob: a job id an import registered answers only to
// the token that imported it (issue 25: an import with job J1 made a later
// job J1 on another moment answer with the forged turn), and an import
// never joins another token's job.
func TestImport_SquattedJob(t *testing.T) {
	f := newFamily(t)
	kids := f.moment(t, f.kid, "homework")
	forged := reading(kids.ID)
	forged.ID, forged.Job, forged.Mode, forged.ClientRequestID = "J1:0", "J1", api.ModeCareful, ""
	f.as(t, f.kid, "POST", api.ImportTurnPath, forged).want(t, http.StatusCreated, nil)

	dads := f.moment(t, f.dad, "the bank's letter")
	a := f.as(t, f.dad, "POST", "/v1/moments/"+dads.ID+"/jobs", api.StartJobRequest{ID: "J1"})
	if a.Status != http.StatusConflict {
		t.Fatalf("dad's job J1 after the kid's import: %d %s; want 409, never the kid's turn", a.Status, a.Body)
	}
	a.wantError(t, http.StatusConflict, api.CodeRequestIDReused)

	// The other way: dad's job, the kid's import into it.
	var jr api.JobResponse
	f.as(t, f.dad, "POST", "/v1/moments/"+dads.ID+"/jobs", api.StartJobRequest{ID: "J2"}).want(t, http.StatusAccepted, &jr)
	join := reading(kids.ID)
	join.ID, join.Job, join.JobIndex, join.Mode, join.ClientRequestID = "J2:5", "J2", 5, api.ModeCareful, ""
	f.as(t, f.kid, "POST", api.ImportTurnPath, join).wantError(t, http.StatusConflict, api.CodeRequestIDReused)
	var again api.JobResponse
	f.as(t, f.dad, "POST", "/v1/moments/"+dads.ID+"/jobs", api.StartJobRequest{ID: "J2"}).want(t, http.StatusOK, &again)
	if len(again.Turns) != len(jr.Turns) {
		t.Fatalf("dad's job J2 has %d turns after the kid's import, want %d", len(again.Turns), len(jr.Turns))
	}
}

// TestImport_SquattedRecall: a recall id an import registered answers only
// to the token that imported it (issue 25: recall R1 made a later recall
// answer with someone else's moment).
func TestImport_SquattedRecall(t *testing.T) {
	f := newFamily(t)
	f.as(t, f.dad, "POST", "/v1/phrases", api.KeepPhraseRequest{Text: "call the bank", MomentID: f.moment(t, f.dad, "x").ID}).want(t, http.StatusCreated, nil)
	kids := f.moment(t, f.kid, "secret")
	forged := reading(kids.ID)
	forged.ID, forged.Recall, forged.Mode, forged.ClientRequestID = "R1:turn", "R1", api.ModeRecall, ""
	f.as(t, f.kid, "POST", api.ImportTurnPath, forged).want(t, http.StatusCreated, nil)
	a := f.as(t, f.dad, "POST", "/v1/recalls", api.StartRecallRequest{ID: "R1"})
	if a.Status != http.StatusConflict {
		t.Fatalf("dad's recall R1 after the kid's import: %d %s; want 409, never the kid's moment", a.Status, a.Body)
	}
	a.wantError(t, http.StatusConflict, api.CodeRequestIDReused)
}

// TestOps_Author: every op a request writes names its token in /v1/ops;
// the engine's own ops (a reading's finish) name none.
func TestOps_Author(t *testing.T) {
	f := newFamily(t, enginetest.WithoutSeat())
	m := f.moment(t, f.dad, "a note")
	f.as(t, f.kid, "POST", api.ImportTurnPath, reading(f.moment(t, f.kid, "mine").ID)).want(t, http.StatusCreated, nil)
	caption := "edited"
	f.as(t, f.e.Token, "PATCH", "/v1/moments/"+m.ID, api.EditMomentRequest{Caption: &caption}).want(t, http.StatusOK, nil)
	var page api.OpsPage
	f.as(t, f.dad, "GET", "/v1/ops", nil).want(t, http.StatusOK, &page)
	var got []string
	for _, op := range page.Ops {
		got = append(got, op.Op+" "+op.Author)
	}
	want := []string{"moment.create dad", "moment.create kid", "turn.start kid", "turn.finish kid", "moment.edit enginetest"}
	if len(got) != len(want) {
		t.Fatalf("ops = %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("op %d = %q, want %q", i, got[i], want[i])
		}
	}
}

// TestScope_HijackedNoteReading: a token that reads a note's creation in
// /v1/ops and imports a reading under the app's old note turn request id
// (note:<id>:turn) is refused, and the note's own turn is then started
// and read by Pippa (issue 25: the real POST /turns got the forged turn
// with created false, and Pippa was never asked).
func TestScope_HijackedNoteReading(t *testing.T) {
	f := newFamily(t)
	var mr api.MomentResponse
	f.as(t, f.dad, "POST", "/v1/moments", api.CreateMomentRequest{Kind: api.KindNote, Caption: "call the bank", ClientRequestID: "note:x"}).want(t, http.StatusCreated, &mr)
	turnReq := "note:" + mr.Moment.ID + ":turn"
	forged := reading(mr.Moment.ID)
	forged.ClientRequestID = turnReq
	f.as(t, f.kid, "POST", api.ImportTurnPath, forged).wantError(t, http.StatusForbidden, api.CodeForbidden)
	var tr api.TurnResponse
	f.as(t, f.dad, "POST", "/v1/moments/"+mr.Moment.ID+"/turns", api.StartTurnRequest{ClientRequestID: turnReq, Mode: api.ModePractical}).want(t, http.StatusAccepted, &tr)
	if tr.Created == nil || !*tr.Created || tr.Turn.Text == forged.Text {
		t.Fatalf("dad's note turn = %+v created %v; want a new turn, Pippa asked", tr.Turn, tr.Created)
	}
}
