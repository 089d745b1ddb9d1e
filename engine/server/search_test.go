package server_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/enginetest"
)

func TestSearch(t *testing.T) {
	e := enginetest.Start(t, enginetest.WithoutSeat())
	var a, b, gone api.MomentResponse
	call(t, e, "POST", "/v1/moments", map[string]string{"client_request_id": "s1", "kind": "photo", "caption": "Letter from the Café Rouge"}).want(t, 201, &a)
	call(t, e, "POST", "/v1/moments", map[string]string{"client_request_id": "s2", "kind": "note", "caption": "Buy red paint for the door"}).want(t, 201, &b)
	call(t, e, "POST", "/v1/moments", map[string]string{"client_request_id": "s3", "kind": "note", "caption": "red herring"}).want(t, 201, &gone)
	call(t, e, "DELETE", "/v1/moments/"+gone.Moment.ID, nil).want(t, 200, nil)
	call(t, e, "POST", "/v1/phrases", map[string]string{"text": "red door", "moment_id": a.Moment.ID}).want(t, 201, nil)
	call(t, e, "POST", "/v1/phrases", map[string]string{"text": "red sky at night"}).want(t, 201, nil)

	search := func(q string) api.SearchResults {
		t.Helper()
		var out api.SearchResults
		call(t, e, "GET", "/v1/search?q="+url.QueryEscape(q), nil).want(t, http.StatusOK, &out)
		return out
	}
	r := search("RED")
	ids := map[string]bool{}
	for _, x := range r.Results {
		ids[x.Moment.ID] = true
	}
	if len(r.Results) != 2 || !ids[a.Moment.ID] || !ids[b.Moment.ID] {
		t.Errorf("red: %d results %v; want the photo (by its phrase) and the note, not the deleted one", len(r.Results), ids)
	}
	if len(r.Phrases) != 1 || r.Phrases[0].Key != "keep:red sky at night" {
		t.Errorf("red: phrases %+v; want the one kept without a moment", r.Phrases)
	}
	r = search("cafe")
	if len(r.Results) != 1 || r.Results[0].Moment.ID != a.Moment.ID {
		t.Fatalf("cafe finds the Café: %+v", r)
	}
	m := r.Results[0].Matches[0]
	var hit string
	for _, p := range m.Parts {
		if p.Hit {
			hit += p.Text
		}
	}
	if m.Source != "caption" || hit != "Café" {
		t.Errorf("match %+v; want the caption with Café marked", m)
	}
	if r := search("   "); len(r.Results) != 0 || r.Results == nil {
		t.Errorf("no words: %+v; want an empty list", r)
	}
	call(t, e, "GET", "/v1/search?q=red&limit=0", nil).wantError(t, 400, api.CodeBadLimit)
	call(t, e, "GET", "/v1/search?q=red", nil, "Authorization", "").wantError(t, 401, api.CodeUnauthorized)
}
