package server

import (
	"net/http"

	"github.com/sparkfamily/spark/api"
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

func (s *server) listPhrases(w http.ResponseWriter, r *http.Request) {
	phrases, err := s.svc.Phrases(r.Context())
	if err != nil {
		s.Error(w, r, err)
		return
	}
	if phrases == nil {
		phrases = []api.Phrase{}
	}
	writeJSON(w, http.StatusOK, api.PhrasesResponse{Phrases: phrases})
}

func (s *server) removePhrase(w http.ResponseWriter, r *http.Request) {
	removed, err := s.svc.RemovePhrase(r.Context(), r.PathValue("id"))
	if err != nil {
		s.Error(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, api.RemovedResponse{Removed: removed})
}
