package server

import (
	"net/http"

	"github.com/sparkfamily/spark/engine/api"
)

func (s *server) listOps(w http.ResponseWriter, r *http.Request) {
	after, limit, err := queryPage(r)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	// The page is encoded as the log is read, and stops at the engine's
	// byte budget, so that memory stays flat whatever the ops hold.
	p := newPageWriter(w, "ops")
	next, err := s.svc.EachOp(r.Context(), after, limit, func(op api.Op) error { return p.add(op) })
	if err != nil {
		s.pageFailed(w, r, p, err)
		return
	}
	p.finish(next)
}

func (s *server) health(w http.ResponseWriter, r *http.Request) {
	h := s.svc.Health(r.Context())
	if s.opts.Version != "" {
		h.Version = s.opts.Version
	}
	if s.opts.Backup != nil {
		h.Backup = s.opts.Backup.Health()
		// The reason may name the target (a bucket, a host, a folder):
		// it goes only to a holder of a token of this engine.
		if _, ok := s.authenticate(r); !ok && h.Backup != nil {
			h.Backup.Reason = ""
		}
	}
	writeJSON(w, http.StatusOK, h)
}
