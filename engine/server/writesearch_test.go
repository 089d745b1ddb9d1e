package server

import (
	"net/http/httptest"
	"testing"

	"github.com/sparkfamily/spark/engine/api"
)

// TestWriteSearch: the search answer written a result at a time is byte
// for byte what writeJSON writes of it whole.
func TestWriteSearch(t *testing.T) {
	match := api.SearchMatch{Source: "caption", Key: "k", Parts: []api.SearchPart{{Text: "a <b> & \u2028 \"c\""}, {Text: "red", Hit: true}}}
	mo := api.Moment{ID: "01JD5G3K8Q5W0V6C2Y8N7R4T1M", Kind: api.KindNote, Caption: "x\n\ty", Turns: []api.Turn{{ID: "t", Text: "é"}}}
	for _, res := range []api.SearchResults{
		{Results: []api.SearchResult{}, Phrases: []api.SearchMatch{}},
		{Results: []api.SearchResult{{Moment: mo, Matches: []api.SearchMatch{match}}}, Phrases: []api.SearchMatch{match}},
		{Results: []api.SearchResult{{Moment: mo, Matches: []api.SearchMatch{match}}, {Moment: mo}}, Phrases: []api.SearchMatch{}, More: true},
	} {
		whole, streamed := httptest.NewRecorder(), httptest.NewRecorder()
		writeJSON(whole, 200, &res)
		writeSearch(streamed, &res)
		if whole.Body.String() != streamed.Body.String() || streamed.Code != 200 ||
			whole.Header().Get("Content-Type") != streamed.Header().Get("Content-Type") ||
			streamed.Header().Get("Cache-Control") != "no-store" {
			t.Errorf("writeSearch wrote\n%s\nwriteJSON\n%s", streamed.Body, whole.Body)
		}
	}
}
