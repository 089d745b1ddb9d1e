package server

import (
	"context"
	"encoding/json"
	"io"
	"net/http"

	"github.com/sparkfamily/spark/engine"
	"github.com/sparkfamily/spark/engine/api"
)

// Searcher is the engine's full-text search [extension]. It is not part of
// Service (the contract's routes): a Service without it answers
// GET /v1/search with 404 not_found.
type Searcher interface {
	Search(ctx context.Context, q string, limit int) (*api.SearchResults, error)
}

var _ Searcher = (*engine.Engine)(nil)

// search is GET /v1/search?q=WORDS&limit=N: the moments whose caption,
// readings or kept phrases hold every word (see docs/API.md).
func (s *server) search(w http.ResponseWriter, r *http.Request) {
	se, ok := s.svc.(Searcher)
	if !ok {
		s.Error(w, r, api.Errorf(api.CodeNotFound, "this engine has no search"))
		return
	}
	limit, err := queryLimit(r)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	q := r.URL.Query().Get("q")
	if len(q) > maxQuery {
		q = q[:maxQuery]
	}
	res, err := se.Search(r.Context(), q, limit)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	writeSearch(w, res)
}

// writeSearch writes res as writeJSON would, one result at a time, so that
// the answer (about engine.PageBytes) is never encoded whole in memory.
func writeSearch(w http.ResponseWriter, res *api.SearchResults) {
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	io.WriteString(w, `{"results":[`)
	for i := range res.Results {
		b, err := json.Marshal(&res.Results[i])
		if err != nil {
			// Only a programming error can get here: a plain api struct.
			panic(http.ErrAbortHandler)
		}
		if i > 0 {
			io.WriteString(w, ",")
		}
		if _, err := w.Write(b); err != nil {
			return // the client went away
		}
	}
	phrases, _ := json.Marshal(res.Phrases) // plain api structs
	io.WriteString(w, `],"phrases":`)
	w.Write(phrases)
	if res.More {
		io.WriteString(w, `,"more":true`)
	}
	io.WriteString(w, "}\n")
}

// maxQuery bounds the bytes of q that are read; mirror.Query keeps 16 words.
const maxQuery = 1000
