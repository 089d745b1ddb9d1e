package server

import (
	"net/http"

	"github.com/sparkfamily/spark/engine/api"
)

func (s *server) keepPhrase(w http.ResponseWriter, r *http.Request) {
	var req api.KeepPhraseRequest
	if err := decodeJSON(w, r, &req); err != nil {
		s.Error(w, r, err)
		return
	}
	p, created, err := s.svc.KeepPhrase(r.Context(), req)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	writeJSON(w, statusFor(created, http.StatusCreated), api.PhraseResponse{Phrase: p, Created: created})
}

// listPhrases is GET /v1/phrases: the active marks, oldest first, a page
// at a time [extension] (?after= the next of the page before, ?limit= up to
// api.MaxPhraseLimit, its default).
func (s *server) listPhrases(w http.ResponseWriter, r *http.Request) {
	after, limit, err := queryPage(r)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	phrases, next, err := s.svc.PhrasePage(r.Context(), after, limit)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, api.PhrasesResponse{Phrases: phrases, Next: next})
}

func (s *server) removePhrase(w http.ResponseWriter, r *http.Request) {
	removed, err := s.svc.RemovePhrase(r.Context(), r.PathValue("id"))
	if err != nil {
		s.Error(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, api.RemovedResponse{Removed: removed})
}
