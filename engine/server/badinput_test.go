package server_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/enginetest"
)

// TestBadInput sends every kind of bad request to every route and checks
// the contract's status and code, and that nothing was written.
func TestBadInput(t *testing.T) {
	e := enginetest.Start(t, enginetest.WithoutSeat())
	m := createMoment(t, e, api.CreateMomentRequest{})
	before := e.OpCount(t, "")

	long := func(n int) string { return strings.Repeat("a", n) }
	badULIDs := []string{"nope", "01ARZ3NDEKTSV4RRFFQ69G5FA", "01ARZ3NDEKTSV4RRFFQ69G5FAVX", "8ZZZZZZZZZZZZZZZZZZZZZZZZZ", "01ARZ3NDEKTSV4RRFFQ69G5FAU"}
	media := "/v1/media/" + newID() + "?role=copy&moment=" + m.ID
	type tc struct {
		name, method, path string
		body               string
		header             []string
		status             int
		code               string
	}
	cases := []tc{
		// Bodies.
		{"EmptyBody", "POST", "/v1/moments", "", nil, 400, api.CodeBadJSON},
		{"MalformedJSON", "POST", "/v1/moments", `{"kind":"note",}`, nil, 400, api.CodeBadJSON},
		{"TruncatedJSON", "POST", "/v1/moments", `{"kind":"no`, nil, 400, api.CodeBadJSON},
		{"NotAnObject", "POST", "/v1/moments", `["note"]`, nil, 400, api.CodeBadJSON},
		{"WrongFieldType", "POST", "/v1/moments", `{"kind":7}`, nil, 400, api.CodeBadJSON},
		{"TwoValues", "POST", "/v1/moments", `{"kind":"note"} {"kind":"note"}`, nil, 400, api.CodeBadJSON},
		{"TooLarge", "POST", "/v1/moments", `{"kind":"note","caption":"` + long(api.MaxJSONBody) + `"}`, nil, 413, api.CodeBodyTooLarge},
		{"BadKind", "POST", "/v1/moments", `{"kind":"video"}`, nil, 400, api.CodeBadKind},
		{"NoKind", "POST", "/v1/moments", `{}`, nil, 400, api.CodeBadKind},
		{"BadTakenAt", "POST", "/v1/moments", `{"kind":"note","taken_at":"yesterday"}`, nil, 400, api.CodeBadTakenAt},
		{"TakenAtNumber", "POST", "/v1/moments", `{"kind":"note","taken_at":12}`, nil, 400, api.CodeBadTakenAt},
		{"BadCreatedAt", "POST", "/v1/moments", `{"kind":"note","created_at":"last spring"}`, nil, 400, api.CodeBadCreatedAt},
		{"CreatedAtFuture", "POST", "/v1/moments", `{"kind":"note","created_at":"2999-01-01T00:00:00Z"}`, nil, 400, api.CodeBadCreatedAt},
		{"EditBadTakenAt", "PATCH", "/v1/moments/" + m.ID, `{"taken_at":"2026-13-01T00:00:00Z"}`, nil, 400, api.CodeBadTakenAt},
		{"EditEmptyBody", "PATCH", "/v1/moments/" + m.ID, ``, nil, 400, api.CodeBadJSON},
		{"TurnEmptyBody", "POST", "/v1/moments/" + m.ID + "/turns", ``, nil, 400, api.CodeBadJSON},
		{"TurnBadMode", "POST", "/v1/moments/" + m.ID + "/turns", `{"client_request_id":"t-1","mode":"careless"}`, nil, 400, api.CodeBadMode},
		{"PhraseEmpty", "POST", "/v1/phrases", `{"text":"   "}`, nil, 400, api.CodeBadText},

		// Ids in bodies.
		{"CreateBadRequestID", "POST", "/v1/moments", `{"kind":"note","client_request_id":"a b"}`, nil, 400, api.CodeBadID},
		{"CreateRequestIDTooLong", "POST", "/v1/moments", `{"kind":"note","client_request_id":"` + long(81) + `"}`, nil, 400, api.CodeBadID},
		{"CreateBadCopyID", "POST", "/v1/moments", `{"kind":"photo","copy_id":"x"}`, nil, 400, api.CodeBadID},
		{"CreateBadOriginalID", "POST", "/v1/moments", `{"kind":"photo","original_id":"../../etc"}`, nil, 400, api.CodeBadID},
		{"TurnNoRequestID", "POST", "/v1/moments/" + m.ID + "/turns", `{"mode":"practical"}`, nil, 400, api.CodeBadID},
		{"TurnBadRequestID", "POST", "/v1/moments/" + m.ID + "/turns", `{"client_request_id":"t/1","mode":"practical"}`, nil, 400, api.CodeBadID},
		{"JobNoID", "POST", "/v1/moments/" + m.ID + "/jobs", `{}`, nil, 400, api.CodeBadID},
		{"JobIDTooLong", "POST", "/v1/moments/" + m.ID + "/jobs", `{"id":"` + long(65) + `"}`, nil, 400, api.CodeBadID},
		{"RecallIDTooLong", "POST", "/v1/recalls", `{"id":"` + long(71) + `"}`, nil, 400, api.CodeBadID},
		{"RecallBadID", "POST", "/v1/recalls", `{"id":"r 1"}`, nil, 400, api.CodeBadID},
		{"PhraseTooLong", "POST", "/v1/phrases", `{"text":"` + long(76) + `"}`, nil, 400, api.CodeBadID},
		{"PhraseBadMomentID", "POST", "/v1/phrases", `{"text":"hello","moment_id":"x"}`, nil, 400, api.CodeBadID},

		// Ids in paths.
		{"TurnBadPathID", "GET", "/v1/turns/a%20b", "", nil, 400, api.CodeBadID},
		{"TurnPathIDTooLong", "GET", "/v1/turns/" + long(81), "", nil, 400, api.CodeBadID},
		{"PhraseNotAnID", "DELETE", "/v1/phrases/hello", "", nil, 400, api.CodeBadID},
		{"PhraseNotNormalized", "DELETE", "/v1/phrases/" + url.PathEscape("keep:Hello  World"), "", nil, 400, api.CodeBadID},

		// Queries.
		{"LimitZero", "GET", "/v1/moments?limit=0", "", nil, 400, api.CodeBadLimit},
		{"LimitTooBig", "GET", "/v1/moments?limit=201", "", nil, 400, api.CodeBadLimit},
		{"LimitNotANumber", "GET", "/v1/moments?limit=ten", "", nil, 400, api.CodeBadLimit},
		{"BeforeBad", "GET", "/v1/moments?before=yesterday", "", nil, 400, api.CodeBadID},
		{"OpsAfterBad", "GET", "/v1/ops?after=-1", "", nil, 400, api.CodeBadID},
		{"OpsLimitTooBig", "GET", "/v1/ops?limit=1001", "", nil, 400, api.CodeBadLimit},
		{"OpsLimitZero", "GET", "/v1/ops?limit=0", "", nil, 400, api.CodeBadLimit},
		{"MediaNoMoment", "PUT", "/v1/media/" + newID() + "?role=copy", "bytes", nil, 400, api.CodeBadID},
		{"MediaBadMoment", "PUT", "/v1/media/" + newID() + "?role=copy&moment=x", "bytes", nil, 400, api.CodeBadID},
		{"MediaNoRole", "PUT", "/v1/media/" + newID() + "?moment=" + m.ID, "bytes", nil, 400, api.CodeBadRole},
		{"MediaBadRole", "PUT", "/v1/media/" + newID() + "?moment=" + m.ID + "&role=thumb", "bytes", nil, 400, api.CodeBadRole},

		// Content-Digest.
		{"DigestNotDictionary", "PUT", media, "bytes", []string{"Content-Digest", "sha-256"}, 400, api.CodeBadDigest},
		{"DigestNoColons", "PUT", media, "bytes", []string{"Content-Digest", "sha-256=abc"}, 400, api.CodeBadDigest},
		{"DigestNotBase64", "PUT", media, "bytes", []string{"Content-Digest", "sha-256=:!!!:"}, 400, api.CodeBadDigest},
		{"DigestWrongLength", "PUT", media, "bytes", []string{"Content-Digest", "sha-256=:AAAA:"}, 400, api.CodeBadDigest},
	}
	for _, id := range badULIDs {
		esc := url.PathEscape(id)
		cases = append(cases,
			tc{"CreateBadID/" + id, "POST", "/v1/moments", fmt.Sprintf(`{"kind":"note","id":%q}`, id), nil, 400, api.CodeBadID},
			tc{"GetMoment/" + id, "GET", "/v1/moments/" + esc, "", nil, 400, api.CodeBadID},
			tc{"EditMoment/" + id, "PATCH", "/v1/moments/" + esc, `{"caption":"x"}`, nil, 400, api.CodeBadID},
			tc{"DeleteMoment/" + id, "DELETE", "/v1/moments/" + esc, "", nil, 400, api.CodeBadID},
			tc{"PutMedia/" + id, "PUT", "/v1/media/" + esc + "?role=copy&moment=" + m.ID, "bytes", nil, 400, api.CodeBadID},
			tc{"GetMedia/" + id, "GET", "/v1/media/" + esc, "", nil, 400, api.CodeBadID},
			tc{"StartTurn/" + id, "POST", "/v1/moments/" + esc + "/turns", `{"client_request_id":"t-2","mode":"practical"}`, nil, 400, api.CodeBadID},
			tc{"StartJob/" + id, "POST", "/v1/moments/" + esc + "/jobs", `{"id":"j-1"}`, nil, 400, api.CodeBadID},
		)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var body any
			switch {
			case c.method == "PUT":
				body = []byte(c.body) // a media file's bytes, with no Content-Type
			case c.body != "":
				body = c.body
			}
			call(t, e, c.method, c.path, body, c.header...).wantError(t, c.status, c.code)
		})
	}
	if after := e.OpCount(t, ""); after != before {
		t.Fatalf("the log went from %d to %d ops under bad input; want nothing written", before, after)
	}
	var mr api.MomentResponse
	call(t, e, "GET", "/v1/moments/"+m.ID, nil).want(t, http.StatusOK, &mr)
	if mr.Moment.Copy != nil || len(mr.Moment.Turns) != 0 {
		t.Fatalf("moment %+v changed under bad input", mr.Moment)
	}
}

// TestBadInput_BodyTooLargeMessage checks that an oversized body's answer
// says what the limit is.
func TestBadInput_Messages(t *testing.T) {
	e := enginetest.Start(t, enginetest.WithoutSeat())
	err := call(t, e, "POST", "/v1/moments", `{"kind":"note","caption":`+strings.Repeat(" ", api.MaxJSONBody)+`"x"}`).
		wantError(t, http.StatusRequestEntityTooLarge, api.CodeBodyTooLarge)
	if !strings.Contains(err.Message, "1048576") {
		t.Errorf("message %q does not name the limit", err.Message)
	}
	err = call(t, e, "POST", "/v1/moments", `{"kind":"note",}`).wantError(t, http.StatusBadRequest, api.CodeBadJSON)
	if !strings.Contains(err.Message, "byte 16") {
		t.Errorf("message %q does not say where the JSON broke", err.Message)
	}
	err = call(t, e, "POST", "/v1/moments", `{"kind":7}`).wantError(t, http.StatusBadRequest, api.CodeBadJSON)
	if !strings.Contains(err.Message, `"kind"`) {
		t.Errorf("message %q does not name the field", err.Message)
	}
}

// TestRefusedWrites covers the refusals that depend on what the engine
// holds, each answered with its code and writing nothing.
func TestRefusedWrites(t *testing.T) {
	e := enginetest.Start(t, enginetest.WithoutSeat())
	live := createMoment(t, e, api.CreateMomentRequest{Kind: api.KindPhoto, CopyID: newID()})
	gone := createMoment(t, e, api.CreateMomentRequest{})
	call(t, e, "DELETE", "/v1/moments/"+gone.ID, nil).want(t, http.StatusOK, nil)
	before := e.OpCount(t, "")

	same := newID()
	for _, c := range []struct {
		name, method, path, body string
		status                   int
		code                     string
	}{
		{"CopyIsOriginal", "POST", "/v1/moments", fmt.Sprintf(`{"kind":"photo","copy_id":%q,"original_id":%q}`, same, same), 400, api.CodeBadMediaRef},
		{"WordsNoLang", "POST", "/v1/moments/" + live.ID + "/words", `{"text":"Severn Water"}`, 400, api.CodeBadWords},
		{"WordsUnknownMoment", "POST", "/v1/moments/" + newID() + "/words", `{"text":"x","lang":"eng"}`, 404, api.CodeUnknownMoment},
		{"EditDismissNotAnID", "PATCH", "/v1/moments/" + gone.ID, `{"dismiss":["../../etc"]}`, 400, api.CodeBadEdit},
		{"EditWrittenByTooLong", "PATCH", "/v1/moments/" + gone.ID, `{"caption":"x","base_caption":"","written_by":"` + strings.Repeat("a", 65) + `"}`, 400, api.CodeBadEdit},
		{"EditRequestIDBad", "PATCH", "/v1/moments/" + gone.ID, `{"caption":"x","client_request_id":"a/b"}`, 400, api.CodeBadID},
		{"PhraseUnknownMoment", "POST", "/v1/phrases", fmt.Sprintf(`{"text":"hello","moment_id":%q}`, newID()), 404, api.CodeUnknownMoment},
		{"MediaOtherRole", "PUT", mediaPath(newID(), live.ID, "copy"), "bytes", 409, api.CodeMediaConflict},
		{"DeleteNeverSeen", "DELETE", "/v1/moments/" + newID(), "", 404, api.CodeNotFound},
	} {
		t.Run(c.name, func(t *testing.T) {
			var body any
			switch {
			case c.method == "PUT":
				body = []byte(c.body) // a media file's bytes, with no Content-Type
			case c.body != "":
				body = c.body
			}
			call(t, e, c.method, c.path, body).wantError(t, c.status, c.code)
		})
	}
	if after := e.OpCount(t, ""); after != before {
		t.Fatalf("the log went from %d to %d ops; want nothing written", before, after)
	}
}
