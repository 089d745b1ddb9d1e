package server

import (
	"context"
	"net/http"

	"github.com/sparkfamily/spark/engine"
	"github.com/sparkfamily/spark/engine/api"
)

// TurnImporter imports a reading finished by another engine [extension].
// It is not part of Service (the contract's routes): a Service without it
// answers POST /v1/import/turns with 404 not_found.
type TurnImporter interface {
	ImportTurn(ctx context.Context, req api.ImportTurnRequest) (*api.Turn, bool, error)
}

var _ TurnImporter = (*engine.Engine)(nil)

// importTurn is POST /v1/import/turns: 201 {"turn", "created": true} when
// the turn was written, 200 with created false for a repeat (see
// docs/API.md).
func (s *server) importTurn(w http.ResponseWriter, r *http.Request) {
	im, ok := s.svc.(TurnImporter)
	if !ok {
		s.Error(w, r, api.Errorf(api.CodeNotFound, "this engine cannot import readings"))
		return
	}
	var req api.ImportTurnRequest
	if err := decodeJSON(w, r, &req); err != nil {
		s.Error(w, r, err)
		return
	}
	t, created, err := im.ImportTurn(r.Context(), req)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	writeJSON(w, statusFor(created, http.StatusCreated), api.TurnResponse{Turn: t, Created: &created})
}
