package server_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/sparkfamily/spark/engine"
	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/enginetest"
)

// importTurn imports a finished practical reading of text on moment.
func importTurn(tb testing.TB, e *enginetest.Engine, momentID, text string) api.ImportTurnRequest {
	tb.Helper()
	in := api.ImportTurnRequest{ID: newID(), MomentID: momentID, Mode: api.ModePractical, Seat: "main",
		ClientRequestID: "imp-" + newID(), Status: api.TurnFinished, Text: text}
	call(tb, e, "POST", api.ImportTurnPath, in).want(tb, http.StatusCreated, nil)
	return in
}

// Issue 25, item 3: a turn's text, error and seat have caps, on import as
// for the engine's own readings; fields of 500 KB were accepted.
func TestImportTurnCaps(t *testing.T) {
	e := enginetest.Start(t, enginetest.WithoutSeat())
	m := createMoment(t, e, api.CreateMomentRequest{Caption: "a letter"})
	for _, c := range []struct {
		name   string
		edit   func(*api.ImportTurnRequest)
		status int
	}{
		{"TextAtCap", func(r *api.ImportTurnRequest) { r.Text = strings.Repeat("a", api.MaxTurnTextBytes) }, 201},
		{"TextOverCap", func(r *api.ImportTurnRequest) { r.Text = strings.Repeat("a", api.MaxTurnTextBytes+1) }, 400},
		{"TextHuge", func(r *api.ImportTurnRequest) { r.Text = strings.Repeat("a", 900<<10) }, 400},
		{"ErrorAtCap", func(r *api.ImportTurnRequest) {
			r.Status, r.Error = api.TurnFailed, strings.Repeat("e", api.MaxTurnErrorBytes)
		}, 201},
		{"Error500KB", func(r *api.ImportTurnRequest) { r.Status, r.Error = api.TurnFailed, strings.Repeat("e", 500<<10) }, 400},
		{"SeatAtCap", func(r *api.ImportTurnRequest) { r.Seat = strings.Repeat("s", api.MaxSeatBytes) }, 201},
		{"Seat500KB", func(r *api.ImportTurnRequest) { r.Seat = strings.Repeat("s", 500<<10) }, 400},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := api.ImportTurnRequest{ID: newID(), MomentID: m.ID, Mode: api.ModePractical, Seat: "main",
				ClientRequestID: "req-" + c.name, Status: api.TurnFinished, Text: "A reading."}
			c.edit(&in)
			before := e.OpCount(t, api.OpTurnStart)
			a := call(t, e, "POST", api.ImportTurnPath, in)
			if c.status == 201 {
				a.want(t, 201, nil)
				return
			}
			a.wantError(t, c.status, api.CodeTurnTooLarge)
			if n := e.OpCount(t, api.OpTurnStart); n != before {
				t.Fatalf("a refused import wrote %d turn.start lines", n-before)
			}
		})
	}
}

// Issue 25, item 3: a moment holds at most api.MaxTurnsPerMoment turns,
// however they come (import, turn start, job); a repeat still answers.
func TestTurnsPerMomentCap(t *testing.T) {
	e := enginetest.Start(t, enginetest.WithoutSeat())
	m := createMoment(t, e, api.CreateMomentRequest{Caption: "a busy moment"})
	call(t, e, "POST", "/v1/moments/"+m.ID+"/turns", api.StartTurnRequest{ClientRequestID: "first", Mode: api.ModePractical}).want(t, 202, nil)
	for range api.MaxTurnsPerMoment - 1 {
		importTurn(t, e, m.ID, "short")
	}
	over := api.ImportTurnRequest{ID: newID(), MomentID: m.ID, Mode: api.ModePractical, ClientRequestID: "one-too-many",
		Status: api.TurnFinished, Text: "short"}
	call(t, e, "POST", api.ImportTurnPath, over).wantError(t, 409, api.CodeTooManyTurns)
	call(t, e, "POST", "/v1/moments/"+m.ID+"/turns", api.StartTurnRequest{ClientRequestID: "second", Mode: api.ModePractical}).
		wantError(t, 409, api.CodeTooManyTurns)
	call(t, e, "POST", "/v1/moments/"+m.ID+"/jobs", api.StartJobRequest{ID: "job-1"}).wantError(t, 409, api.CodeTooManyTurns)
	// A repeat of a turn already started writes nothing and still answers.
	call(t, e, "POST", "/v1/moments/"+m.ID+"/turns", api.StartTurnRequest{ClientRequestID: "first", Mode: api.ModePractical}).want(t, 200, nil)
	if n := e.OpCount(t, api.OpTurnStart); n != api.MaxTurnsPerMoment {
		t.Fatalf("%d turn.start lines, want %d", n, api.MaxTurnsPerMoment)
	}
	// Another moment is not held back.
	other := createMoment(t, e, api.CreateMomentRequest{})
	importTurn(t, e, other.ID, "fine")
}

// Issue 25, item 3: a moment's turns are paged. Its answer (by id, in a
// page of moments, in a search) carries its first turns within a byte
// budget and turns_next; GET /v1/moments/{id}/turns pages through the
// rest. Before, one GET answered every turn whole.
func TestMomentTurnsArePaged(t *testing.T) {
	e := enginetest.Start(t, enginetest.WithoutSeat())
	m := createMoment(t, e, api.CreateMomentRequest{Caption: "heron by the canal"})
	const n = 40
	text := strings.Repeat("x", 60<<10) // under the cap; 40 of them are 2.4 MB
	var want []string
	for i := range n {
		want = append(want, importTurn(t, e, m.ID, fmt.Sprintf("%02d %s", i, text)).ID)
	}
	const bound = 512 << 10 // a moment's answer: its budget, one turn, the caption and fields

	a := call(t, e, "GET", "/v1/moments/"+m.ID, nil)
	var mr api.MomentResponse
	a.want(t, 200, &mr)
	if len(a.Body) > bound || mr.Moment.TurnsNext == nil || len(mr.Moment.Turns) == 0 || len(mr.Moment.Turns) >= n {
		t.Fatalf("GET /v1/moments/{id}: %d bytes, %d turns, turns_next %v; want at most %d bytes, a few turns and a cursor",
			len(a.Body), len(mr.Moment.Turns), mr.Moment.TurnsNext, bound)
	}
	var got []string
	for _, tr := range mr.Moment.Turns {
		got = append(got, tr.ID)
	}
	next := mr.Moment.TurnsNext
	for pages := 0; next != nil; pages++ {
		if pages > n {
			t.Fatal("the turns' pages do not end")
		}
		a := call(t, e, "GET", "/v1/moments/"+m.ID+"/turns?after="+*next, nil)
		var tp api.TurnsResponse
		a.want(t, 200, &tp)
		if len(a.Body) > 2<<20 || len(tp.Turns) == 0 {
			t.Fatalf("a page of turns: %d bytes, %d turns", len(a.Body), len(tp.Turns))
		}
		for _, tr := range tp.Turns {
			got = append(got, tr.ID)
		}
		next = tp.Next
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("paged turns:\n%v\nwant, oldest first:\n%v", got, want)
	}
	var tp api.TurnsResponse
	call(t, e, "GET", "/v1/moments/"+m.ID+"/turns?limit=3", nil).want(t, 200, &tp)
	if len(tp.Turns) != 3 || tp.Next == nil || *tp.Next != want[2] {
		t.Fatalf("limit=3: %d turns, next %v", len(tp.Turns), tp.Next)
	}
	call(t, e, "GET", "/v1/moments/"+m.ID+"/turns?after=nope!", nil).wantError(t, 400, api.CodeBadID)
	call(t, e, "GET", "/v1/moments/"+m.ID+"/turns?after=not-a-turn-here", nil).wantError(t, 400, api.CodeBadID)
	call(t, e, "GET", "/v1/moments/"+newID()+"/turns", nil).wantError(t, 404, api.CodeNotFound)
	call(t, e, "GET", "/v1/moments/"+m.ID+"/turns?limit=201", nil).wantError(t, 400, api.CodeBadLimit)

	// A page of moments and a search hold the same cut moment.
	for _, path := range []string{"/v1/moments", "/v1/search?q=heron"} {
		a := call(t, e, "GET", path, nil)
		if a.Status != 200 || len(a.Body) > bound || !strings.Contains(string(a.Body), `"turns_next":"`) {
			t.Fatalf("GET %s: status %d, %d bytes; want 200, at most %d bytes with turns_next", path, a.Status, len(a.Body), bound)
		}
	}
}

// Issue 25, item 8: GET /v1/phrases is paged; without a query it answers
// as before (the first page holds up to api.MaxPhraseLimit phrases).
func TestPhrasesArePaged(t *testing.T) {
	e := enginetest.Start(t, enginetest.WithoutSeat())
	const n = 7
	for i := range n {
		call(t, e, "POST", "/v1/phrases", api.KeepPhraseRequest{Text: fmt.Sprintf("phrase %d", i)}).want(t, 201, nil)
	}
	call(t, e, "DELETE", "/v1/phrases/keep:phrase%203", nil).want(t, 200, nil)
	var all api.PhrasesResponse
	call(t, e, "GET", "/v1/phrases", nil).want(t, 200, &all)
	if len(all.Phrases) != n-1 || all.Next != nil {
		t.Fatalf("GET /v1/phrases: %d phrases, next %v; want %d, null", len(all.Phrases), all.Next, n-1)
	}
	var got []string
	path := "/v1/phrases?limit=2"
	for pages := 0; ; pages++ {
		if pages > n {
			t.Fatal("the pages do not end")
		}
		var p api.PhrasesResponse
		call(t, e, "GET", path, nil).want(t, 200, &p)
		if len(p.Phrases) > 2 {
			t.Fatalf("limit=2 gave %d phrases", len(p.Phrases))
		}
		for _, ph := range p.Phrases {
			got = append(got, ph.ID)
		}
		if p.Next == nil {
			break
		}
		path = fmt.Sprintf("/v1/phrases?limit=2&after=%d", *p.Next)
	}
	var want []string
	for _, ph := range all.Phrases {
		want = append(want, ph.ID)
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("paged phrases %v, want %v", got, want)
	}
	call(t, e, "GET", fmt.Sprintf("/v1/phrases?limit=%d", api.MaxPhraseLimit+1), nil).wantError(t, 400, api.CodeBadLimit)
	call(t, e, "GET", "/v1/phrases?after=x", nil).wantError(t, 400, api.CodeBadID)
}

// Issue 25, item 3: every page respects its byte budget, or is one item
// alone. Before, the item that crossed the budget was the page's last, so
// a page could hold a budget and a whole moment more.
func TestPagesWithinBudget(t *testing.T) {
	e := enginetest.Start(t, enginetest.WithoutSeat())
	caption := "kingfisher " + strings.Repeat("by the water ", 60<<10/13)
	text := strings.Repeat("a reading ", 60<<10/10)
	for range 7 {
		m := createMoment(t, e, api.CreateMomentRequest{Caption: caption})
		for range 4 {
			importTurn(t, e, m.ID, text)
		}
	}
	const envelope = 256 // {"moments":[...],"next":"<id>"} and the like
	for _, first := range []string{"/v1/moments?limit=200", "/v1/ops?limit=1000", "/v1/search?q=kingfisher&limit=200"} {
		path, pages := first, 0
		for path != "" {
			a := call(t, e, "GET", path, nil)
			var page struct {
				Moments []json.RawMessage `json:"moments"`
				Ops     []json.RawMessage `json:"ops"`
				Results []json.RawMessage `json:"results"`
				Next    json.RawMessage   `json:"next"`
			}
			a.want(t, 200, &page)
			items := len(page.Moments) + len(page.Ops) + len(page.Results)
			if len(a.Body) > engine.PageBytes+envelope && items > 1 {
				t.Fatalf("GET %s: %d bytes in %d items, past the budget of %d", path, len(a.Body), items, engine.PageBytes)
			}
			pages++
			path = ""
			if n := string(page.Next); n != "" && n != "null" && !strings.HasPrefix(first, "/v1/search") {
				key := "before"
				if strings.HasPrefix(first, "/v1/ops") {
					key = "after"
				}
				path = first + "&" + key + "=" + strings.Trim(n, `"`)
			}
		}
		if pages < 2 && !strings.HasPrefix(first, "/v1/search") {
			t.Fatalf("GET %s: %d page; the corpus should take several", first, pages)
		}
	}
}
