package server

import (
	"net/http"
	"strconv"

	"github.com/sparkfamily/spark/api"
)

func (s *server) listOps(w http.ResponseWriter, r *http.Request) {
	var after uint64
	if v := r.URL.Query().Get("after"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			s.Error(w, r, api.Errorf(api.CodeBadID, "after must be a seq, a whole number from 0 (as given in \"next\"); got %q", v))
			return
		}
		after = n
	}
	limit, err := queryLimit(r)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	ops, next, err := s.svc.Ops(r.Context(), after, limit)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	if ops == nil {
		ops = []api.Op{}
	}
	writeJSON(w, http.StatusOK, api.OpsPage{Ops: ops, Next: next})
}

func (s *server) health(w http.ResponseWriter, r *http.Request) {
	h := s.svc.Health(r.Context())
	if s.opts.Version != "" {
		h.Version = s.opts.Version
	}
	writeJSON(w, http.StatusOK, h)
}
