package server

import (
	"net/http"

	"github.com/sparkfamily/spark/engine/api"
)

func (s *server) startTurn(w http.ResponseWriter, r *http.Request) {
	var req api.StartTurnRequest
	if err := decodeJSON(w, r, &req); err != nil {
		s.Error(w, r, err)
		return
	}
	t, created, err := s.svc.StartTurn(r.Context(), r.PathValue("id"), req)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	writeJSON(w, statusFor(created, http.StatusAccepted), api.TurnResponse{Turn: t, Created: &created})
}

func (s *server) getTurn(w http.ResponseWriter, r *http.Request) {
	t, err := s.svc.Turn(r.Context(), r.PathValue("id"))
	if err != nil {
		s.Error(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, api.TurnResponse{Turn: t})
}

func (s *server) startJob(w http.ResponseWriter, r *http.Request) {
	var req api.StartJobRequest
	if err := decodeJSON(w, r, &req); err != nil {
		s.Error(w, r, err)
		return
	}
	turns, created, err := s.svc.StartJob(r.Context(), r.PathValue("id"), req.ID)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	if turns == nil {
		turns = []api.Turn{}
	}
	writeJSON(w, statusFor(created, http.StatusAccepted), api.JobResponse{JobID: req.ID, Turns: turns, Created: created})
}

func (s *server) startRecall(w http.ResponseWriter, r *http.Request) {
	var req api.StartRecallRequest
	if err := decodeJSON(w, r, &req); err != nil {
		s.Error(w, r, err)
		return
	}
	m, t, created, err := s.svc.StartRecall(r.Context(), req.ID)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	writeJSON(w, statusFor(created, http.StatusCreated), api.RecallResponse{Moment: m, Turn: t, Created: created})
}
