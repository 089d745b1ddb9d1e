package server

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/sparkfamily/spark/engine/api"
)

// TestWriteJSON_IsMarshal: an answer is json.Marshal's bytes and a
// newline, whatever answers came before it through the reused buffers (a
// longer one, one too large to keep).
func TestWriteJSON_IsMarshal(t *testing.T) {
	at := time.Date(2026, 5, 1, 14, 30, 0, 123, time.FixedZone("", 7200))
	created := true
	for _, v := range []any{
		api.MomentResponse{Moment: &api.Moment{ID: "01JD5G3K8Q5W0V6C2Y8N7R4T1M", Kind: api.KindNote,
			Caption: strings.Repeat("a <b> & \u2028 \"c\" \xff ", 40), TakenAt: &at, CreatedAt: at, UpdatedAt: at, Turns: []api.Turn{}}, Created: &created},
		api.DeleteResponse{Deleted: true},
		api.MomentResponse{Moment: &api.Moment{Caption: strings.Repeat("x", 100<<10), Turns: []api.Turn{{ID: "t", Text: "é"}}}},
		api.ErrorBody{Error: &api.Error{Code: api.CodeNotFound, Message: "no moment"}},
		api.RemovedResponse{},
	} {
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		w := httptest.NewRecorder()
		writeJSON(w, 201, v)
		if got := w.Body.String(); got != string(want)+"\n" {
			t.Errorf("writeJSON(%T) wrote %d bytes:\n%.300s\nwant json.Marshal's %d and a newline:\n%.300s", v, len(got), got, len(want), want)
		}
		if w.Code != 201 || w.Header().Get("Content-Type") != "application/json; charset=utf-8" || w.Header().Get("Cache-Control") != "no-store" {
			t.Errorf("writeJSON(%T): status %d, headers %v", v, w.Code, w.Header())
		}
	}
}
