package server_test

import (
	"net/http"
	"testing"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/enginetest"
)

// TestPutWords_HTTP: POST /v1/moments/{id}/words [extension] answers 201
// with the words the first time, and 200 with those first words after,
// writing one op; the moment then carries them.
func TestPutWords_HTTP(t *testing.T) {
	e := enginetest.Start(t, enginetest.WithoutSeat())
	m := createMoment(t, e, api.CreateMomentRequest{Kind: api.KindPhoto})
	first := api.Words{Text: "Severn Water\nRD/7731/Q", Lang: "eng"}
	var res api.WordsResponse
	call(t, e, "POST", "/v1/moments/"+m.ID+"/words", first).want(t, http.StatusCreated, &res)
	if !res.Created || res.Words == nil || *res.Words != first {
		t.Fatalf("first words: %+v", res)
	}
	res = api.WordsResponse{}
	call(t, e, "POST", "/v1/moments/"+m.ID+"/words", api.Words{Text: "Severn Wafer", Lang: "eng"}).want(t, http.StatusOK, &res)
	if res.Created || res.Words == nil || *res.Words != first {
		t.Fatalf("a second reading: %+v; want the first words, not created", res)
	}
	if n := e.OpCount(t, api.OpMomentWords); n != 1 {
		t.Fatalf("%d moment.words ops; want 1", n)
	}
	var got api.MomentResponse
	call(t, e, "GET", "/v1/moments/"+m.ID, nil).want(t, http.StatusOK, &got)
	if got.Moment.Words == nil || *got.Moment.Words != first {
		t.Fatalf("the moment's words = %+v", got.Moment.Words)
	}
}
