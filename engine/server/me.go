package server

import (
	"net/http"

	"github.com/sparkfamily/spark/engine"
	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/auth"
)

// me is GET /v1/me [extension]: the family member the request's token
// acts for and its scope, so that a window can tell its own member's
// moments and phrases from the others' and name only the others. Only an
// authenticated request reaches it (ServeHTTP), so it always has an actor.
func (s *server) me(w http.ResponseWriter, r *http.Request) {
	a, ok := engine.ActorFrom(r.Context())
	if !ok {
		writeError(w, api.Errorf(api.CodeUnauthorized, "this request needs an Authorization: Bearer <token> header with a valid token"))
		return
	}
	scope := auth.ScopeDevice
	if a.Admin {
		scope = auth.ScopeAdmin
	}
	writeJSON(w, http.StatusOK, api.Me{Member: a.MemberOf(), Scope: string(scope)})
}
