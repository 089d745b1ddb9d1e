package server_test

import (
	"net/http"
	"net/url"
	"strconv"
	"testing"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/enginetest"
)

func TestPhrases(t *testing.T) {
	e := enginetest.Start(t, enginetest.WithoutSeat())
	m := createMoment(t, e, api.CreateMomentRequest{})
	var pr api.PhraseResponse
	call(t, e, "POST", "/v1/phrases", `{"text":"  The Light  on\tthe water ","moment_id":"`+m.ID+`"}`).want(t, http.StatusCreated, &pr)
	if !pr.Created || pr.Phrase.ID != "keep:the light on the water" || pr.Phrase.MomentID != m.ID {
		t.Fatalf("kept %+v created %v", pr.Phrase, pr.Created)
	}
	var list api.PhrasesResponse
	call(t, e, "GET", "/v1/phrases", nil).want(t, http.StatusOK, &list)
	if len(list.Phrases) != 1 || list.Phrases[0].ID != pr.Phrase.ID {
		t.Fatalf("phrases %+v", list.Phrases)
	}
	var rm api.RemovedResponse
	call(t, e, "DELETE", "/v1/phrases/"+url.PathEscape(pr.Phrase.ID), nil).want(t, http.StatusOK, &rm)
	if !rm.Removed {
		t.Fatal("removed false for a kept phrase")
	}
	a := call(t, e, "GET", "/v1/phrases", nil)
	a.want(t, http.StatusOK, &list)
	if len(list.Phrases) != 0 || string(a.Body) != "{\"phrases\":[]}\n" {
		t.Fatalf("phrases after removal: %s", a.Body)
	}
	// A phrase id with a slash travels escaped in the path.
	call(t, e, "POST", "/v1/phrases", `{"text":"either/or"}`).want(t, http.StatusCreated, &pr)
	call(t, e, "DELETE", "/v1/phrases/"+url.PathEscape(pr.Phrase.ID), nil).want(t, http.StatusOK, &rm)
	if !rm.Removed {
		t.Fatalf("removing %q: removed false", pr.Phrase.ID)
	}
}

func TestOps(t *testing.T) {
	e := enginetest.Start(t, enginetest.WithoutSeat())
	for _, rid := range []string{"a", "b", "c"} {
		createMoment(t, e, api.CreateMomentRequest{ClientRequestID: rid})
	}
	var page api.OpsPage
	call(t, e, "GET", "/v1/ops?limit=2", nil).want(t, http.StatusOK, &page)
	if len(page.Ops) != 2 || page.Ops[0].Seq != 1 || page.Ops[0].Op != api.OpMomentCreate || page.Ops[0].ClientRequestID != "a" || page.Next == nil {
		t.Fatalf("first page %+v", page)
	}
	var rest api.OpsPage
	call(t, e, "GET", "/v1/ops?after="+strconv.FormatUint(*page.Next, 10), nil).want(t, http.StatusOK, &rest)
	if len(rest.Ops) != 1 || rest.Ops[0].Seq != 3 || rest.Ops[0].ClientRequestID != "c" || rest.Next != nil {
		t.Fatalf("second page %+v", rest)
	}
	var none api.OpsPage
	a := call(t, e, "GET", "/v1/ops?after=3", nil)
	a.want(t, http.StatusOK, &none)
	if len(none.Ops) != 0 {
		t.Fatalf("ops after the end: %s", a.Body)
	}
}
