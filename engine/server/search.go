package server

import (
	"context"
	"net/http"

	"github.com/sparkfamily/spark/api"
	"github.com/sparkfamily/spark/engine"
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
	writeJSON(w, http.StatusOK, res)
}

// maxQuery bounds the bytes of q that are read; mirror.Query keeps 16 words.
const maxQuery = 1000
