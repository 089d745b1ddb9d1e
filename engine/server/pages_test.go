package server_test

import (
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/sparkfamily/spark/engine"
	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/enginetest"
	"github.com/sparkfamily/spark/internal/racebuild"
)

// bigCorpus fills an engine with n note moments whose captions are each
// just under the caption cap, and returns their ids, oldest first.
func bigCorpus(t *testing.T, e *enginetest.Engine, n int) []string {
	t.Helper()
	ids := make([]string, n)
	for i := range ids {
		caption := fmt.Sprintf("%04d ", i) + strings.Repeat("a long note. ", (api.MaxCaptionBytes-64)/13)
		ids[i] = createMoment(t, e, api.CreateMomentRequest{Caption: caption}).ID
	}
	return ids
}

// allocated runs f and returns the bytes the whole process allocated
// meanwhile (the engine's side and the client's reading of the answer).
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestPageBudget: GET /v1/ops?limit=1000 over moments with huge captions
// used to build the whole answer in memory (155 MB for 152 such moments),
// and so did GET /v1/moments and GET /v1/search (200 whole moments). A page now stops at engine.PageBytes and is
// encoded as it goes: what one request allocates does not grow with the
// corpus, and walking the pages by their cursors still gives every op and
// every moment once, in order.
func TestPageBudget(t *testing.T) {
	racebuild.Heavy(t, "measures what a page allocates over 19 MiB of captions")
	// The searches here match all n moments, each with thousands of hits:
	// under -race on a busy CI machine one took past the default budget
	// of 10 s and was given up (search_too_broad). The budget is what
	// mirror.TestSearch_Budget checks; here it is the page's bytes.
	e := enginetest.Start(t, enginetest.WithoutSeat(), enginetest.WithConfig(func(c *engine.Config) { c.SearchBudget = 5 * time.Minute }))
	const n = 300 // about 19 MiB of captions: 19 pages' worth
	ids := bigCorpus(t, e, n)

	// Memory: what a request allocates is bounded by the page budget, not
	// by the corpus (which is n/16 budgets).
	bound := uint64(12 * engine.PageBytes)
	for _, path := range []string{"/v1/ops?limit=1000", "/v1/moments?limit=200", "/v1/search?q=long+note&limit=200"} {
		var body []byte
		got := allocated(func() { body = call(t, e, "GET", path, nil).Body })
		t.Logf("GET %s: %d KiB answered, %d KiB allocated", path, len(body)>>10, got>>10)
		if got > bound {
			t.Errorf("GET %s allocated %d MiB; the bound is %d MiB whatever the corpus", path, got>>20, bound>>20)
		}
		if len(body) > engine.PageBytes+api.MaxCaptionBytes+4096 {
			t.Errorf("GET %s answered %d bytes, past the page budget of %d and one item", path, len(body), engine.PageBytes)
		}
	}

	// A search that finds every moment stops at the budget, best first,
	// and says that it stopped.
	var found api.SearchResults
	call(t, e, "GET", "/v1/search?q=long+note&limit=200", nil).want(t, http.StatusOK, &found)
	if len(found.Results) == 0 || len(found.Results) >= 200 || !found.More {
		t.Errorf("a search of %d moments of long captions answered %d of them, more %v; want fewer than the limit and more", n, len(found.Results), found.More)
	}
	var few api.SearchResults
	call(t, e, "GET", "/v1/search?q=long+note&limit=3", nil).want(t, http.StatusOK, &few)
	if len(few.Results) != 3 || few.More {
		t.Errorf("a search with limit 3 answered %d moments, more %v; want 3, and more unset", len(few.Results), few.More)
	}

	// Cursors: every op once, in order, over pages shorter than the limit.
	var seqs []uint64
	pages := 0
	for after := uint64(0); ; pages++ {
		var page api.OpsPage
		call(t, e, "GET", fmt.Sprintf("/v1/ops?limit=1000&after=%d", after), nil).want(t, http.StatusOK, &page)
		if len(page.Ops) == 0 && page.Next != nil {
			t.Fatalf("an empty page after %d has a next cursor", after)
		}
		for _, op := range page.Ops {
			seqs = append(seqs, op.Seq)
		}
		if page.Next == nil {
			break
		}
		if *page.Next != page.Ops[len(page.Ops)-1].Seq {
			t.Fatalf("next %d is not the seq of the page's last op %d", *page.Next, page.Ops[len(page.Ops)-1].Seq)
		}
		after = *page.Next
	}
	if len(seqs) != n {
		t.Fatalf("the pages of /v1/ops gave %d ops, want %d", len(seqs), n)
	}
	for i, s := range seqs {
		if s != uint64(i+1) {
			t.Fatalf("op %d has seq %d, want %d", i, s, i+1)
		}
	}
	if pages < 10 {
		t.Errorf("%d pages of ops for %d MiB of captions; the byte budget did not cut them", pages, n*api.MaxCaptionBytes>>20)
	}

	// The limit still holds when it is reached first.
	var small api.OpsPage
	call(t, e, "GET", "/v1/ops?limit=3", nil).want(t, http.StatusOK, &small)
	if len(small.Ops) != 3 || small.Next == nil || *small.Next != 3 {
		t.Fatalf("limit=3 gave %d ops and next %v", len(small.Ops), small.Next)
	}

	// Moments: newest first, each once.
	var got []string
	before := ""
	for {
		var page api.MomentsPage
		call(t, e, "GET", "/v1/moments?limit=200&before="+before, nil).want(t, http.StatusOK, &page)
		for _, m := range page.Moments {
			got = append(got, m.ID)
		}
		if page.Next == nil {
			break
		}
		if *page.Next != page.Moments[len(page.Moments)-1].ID {
			t.Fatalf("next %s is not the page's last moment %s", *page.Next, page.Moments[len(page.Moments)-1].ID)
		}
		before = *page.Next
	}
	if len(got) != n {
		t.Fatalf("the pages of /v1/moments gave %d moments, want %d", len(got), n)
	}
	for i, id := range got {
		if id != ids[n-1-i] {
			t.Fatalf("moment %d is %s, want %s", i, id, ids[n-1-i])
		}
	}
}

// TestPageEnd: a page that ends exactly where the log ends has no next
// cursor, whether the limit or the byte budget filled it; an empty log
// answers an empty page.
func TestPageEnd(t *testing.T) {
	e := enginetest.Start(t, enginetest.WithoutSeat())
	var empty api.OpsPage
	a := call(t, e, "GET", "/v1/ops", nil)
	a.want(t, http.StatusOK, &empty)
	if string(a.Body) != "{\"ops\":[],\"next\":null}\n" || a.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("empty log answered %q (Cache-Control %q)", a.Body, a.Header.Get("Cache-Control"))
	}
	var none api.MomentsPage
	call(t, e, "GET", "/v1/moments", nil).want(t, http.StatusOK, &none)
	if len(none.Moments) != 0 || none.Next != nil {
		t.Fatalf("no moments answered %+v", none)
	}

	bigCorpus(t, e, 2)
	var page api.OpsPage
	call(t, e, "GET", "/v1/ops?limit=2", nil).want(t, http.StatusOK, &page)
	if len(page.Ops) != 2 || page.Next != nil {
		t.Fatalf("a limit that ends with the log: %d ops, next %v; want 2 and null", len(page.Ops), page.Next)
	}
	var ms api.MomentsPage
	call(t, e, "GET", "/v1/moments?limit=2", nil).want(t, http.StatusOK, &ms)
	if len(ms.Moments) != 2 || ms.Next != nil {
		t.Fatalf("a limit that ends with the moments: %d, next %v; want 2 and null", len(ms.Moments), ms.Next)
	}
}
