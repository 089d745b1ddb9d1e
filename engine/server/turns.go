package server

import (
	"net/http"

	"github.com/sparkfamily/spark/api"
)

func (s *server) startTurn(w http.ResponseWriter, r *http.Request) {
	momentID, err := requireULID("moment id", r.PathValue("id"))
	if err != nil {
		s.Error(w, r, err)
		return
	}
	var req api.StartTurnRequest
	if err := decodeJSON(w, r, &req); err != nil {
		s.Error(w, r, err)
		return
	}
	if err := api.CheckRequestID(req.ClientRequestID); err != nil {
		s.Error(w, r, err)
		return
	}
	if req.Mode != api.ModePractical {
		s.Error(w, r, api.Errorf(api.CodeBadMode, "mode must be %q; got %q (careful readings are started as a job: POST /v1/moments/{id}/jobs)", api.ModePractical, req.Mode))
		return
	}
	t, created, err := s.svc.StartTurn(r.Context(), momentID, req)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	writeJSON(w, statusFor(created, http.StatusAccepted), api.TurnResponse{Turn: t, Created: &created})
}

func (s *server) getTurn(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	// Turn ids are request-id shaped: a client request id, "<job id>:<i>"
	// or "<recall id>:turn".
	if err := api.CheckRequestID(id); err != nil {
		s.Error(w, r, prefix("turn id", err))
		return
	}
	t, err := s.svc.Turn(r.Context(), id)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, api.TurnResponse{Turn: t})
}

func (s *server) startJob(w http.ResponseWriter, r *http.Request) {
	momentID, err := requireULID("moment id", r.PathValue("id"))
	if err != nil {
		s.Error(w, r, err)
		return
	}
	var req api.StartJobRequest
	if err := decodeJSON(w, r, &req); err != nil {
		s.Error(w, r, err)
		return
	}
	if err := api.CheckJobID(req.ID); err != nil {
		s.Error(w, r, err)
		return
	}
	turns, created, err := s.svc.StartJob(r.Context(), momentID, req.ID)
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
	if err := api.CheckRecallID(req.ID); err != nil {
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
