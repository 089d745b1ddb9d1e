package server

import (
	"encoding/json"
	"net/http"

	"github.com/sparkfamily/spark/engine/api"
)

// createBody is the body of POST /v1/moments, with taken_at and created_at
// kept raw so that a bad time is answered bad_taken_at or bad_created_at
// rather than bad_json.
type createBody struct {
	api.CreateMomentRequest
	TakenAt   json.RawMessage `json:"taken_at"`
	CreatedAt json.RawMessage `json:"created_at"`
}

func (s *server) createMoment(w http.ResponseWriter, r *http.Request) {
	var body createBody
	if err := decodeJSON(w, r, &body); err != nil {
		s.Error(w, r, err)
		return
	}
	req := body.CreateMomentRequest
	var err error
	if req.TakenAt, err = parseTakenAt(body.TakenAt); err != nil {
		s.Error(w, r, err)
		return
	}
	if req.CreatedAt, err = parseTime(body.CreatedAt, "created_at", api.CodeBadCreatedAt); err != nil {
		s.Error(w, r, err)
		return
	}
	m, created, err := s.svc.CreateMoment(r.Context(), req)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	writeJSON(w, statusFor(created, http.StatusCreated), api.MomentResponse{Moment: m, Created: &created})
}

func (s *server) getMoment(w http.ResponseWriter, r *http.Request) {
	m, err := s.svc.Moment(r.Context(), r.PathValue("id"))
	if err != nil {
		s.Error(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, api.MomentResponse{Moment: m})
}

// momentTurns is GET /v1/moments/{id}/turns [extension]: a page of the
// moment's turns, oldest first, after the turn ?after= (the moment's
// turns_next, or a page's next).
func (s *server) momentTurns(w http.ResponseWriter, r *http.Request) {
	limit, err := queryLimit(r)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	turns, next, err := s.svc.MomentTurns(r.Context(), r.PathValue("id"), r.URL.Query().Get("after"), limit)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, api.TurnsResponse{Turns: turns, Next: next})
}

func (s *server) listMoments(w http.ResponseWriter, r *http.Request) {
	limit, err := queryLimit(r)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	// Encoded as the mirror is read, a few moments at a time, and cut at
	// the engine's byte budget.
	each := s.svc.EachMoment
	switch r.URL.Query().Get("deleted") {
	case "", "false":
	case "true":
		each = s.svc.EachDeletedMoment // Recently deleted [extension]
	default:
		s.Error(w, r, api.Errorf(api.CodeBadDeleted, "?deleted= must be true (Recently deleted) or false (the live moments); got %q", r.URL.Query().Get("deleted")))
		return
	}
	p := newPageWriter(w, "moments")
	next, err := each(r.Context(), limit, r.URL.Query().Get("before"), func(m *api.Moment) error { return p.add(m) })
	if err != nil {
		s.pageFailed(w, r, p, err)
		return
	}
	p.finish(next)
}

// editBody is the body of PATCH /v1/moments/{id}, with taken_at kept raw for
// the same reason as createBody's.
type editBody struct {
	api.EditMomentRequest
	TakenAt json.RawMessage `json:"taken_at"`
}

func (s *server) editMoment(w http.ResponseWriter, r *http.Request) {
	var body editBody
	if err := decodeJSON(w, r, &body); err != nil {
		s.Error(w, r, err)
		return
	}
	req := body.EditMomentRequest
	var err error
	if req.TakenAt, err = parseTakenAt(body.TakenAt); err != nil {
		s.Error(w, r, err)
		return
	}
	m, restored, err := s.svc.EditMoment(r.Context(), r.PathValue("id"), req)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, api.EditMomentResponse{Moment: m, Restored: restored})
}

func (s *server) deleteMoment(w http.ResponseWriter, r *http.Request) {
	deleted, err := s.svc.DeleteMoment(r.Context(), r.PathValue("id"))
	if err != nil {
		s.Error(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, api.DeleteResponse{Deleted: deleted})
}

// restoreMoment is POST /v1/moments/{id}/restore [extension]: a deleted
// moment brought back.
// putWords keeps the words found in a moment's photo [extension]: 201 the
// first time, 200 with the words kept before after.
func (s *server) putWords(w http.ResponseWriter, r *http.Request) {
	var body api.Words
	if err := decodeJSON(w, r, &body); err != nil {
		s.Error(w, r, err)
		return
	}
	words, created, err := s.svc.PutWords(r.Context(), r.PathValue("id"), body)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	writeJSON(w, status, api.WordsResponse{Words: words, Created: created})
}

func (s *server) restoreMoment(w http.ResponseWriter, r *http.Request) {
	m, restored, err := s.svc.RestoreMoment(r.Context(), r.PathValue("id"))
	if err != nil {
		s.Error(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, api.RestoreResponse{Moment: m, Restored: restored})
}
