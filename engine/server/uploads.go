package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/sparkfamily/spark/engine"
	"github.com/sparkfamily/spark/engine/api"
)

// Resumable uploads of media [extension], after the IETF draft "Resumable
// Uploads for HTTP" (draft-ietf-httpbis-resumable-upload); docs/API.md has
// the routes. PUT /v1/media/{id} is unchanged beside them.
//
//	OPTIONS /v1/media/{id}   Accept-Patch: application/partial-upload, Upload-Limit
//	POST    /v1/media/{id}   upload creation (104 with Location first)
//	HEAD    /v1/uploads/{id} offset retrieval
//	PATCH   /v1/uploads/{id} upload append
//	DELETE  /v1/uploads/{id} upload cancellation
//
// An upload is the family member's whose device created it (engine/
// uploads.go): to another member's token it answers as one that does not
// exist.

// UploadService is what the resumable uploads need of the engine
// (*engine.Engine is one); a Service without it serves no such routes.
type UploadService interface {
	CreateUpload(ctx context.Context, p engine.CreateUpload) (engine.UploadState, error)
	UploadOffset(ctx context.Context, id string) (engine.UploadState, error)
	AppendUpload(ctx context.Context, p engine.AppendUpload) (engine.UploadState, error)
	CancelUpload(ctx context.Context, id string) error
	UploadLimits() (maxSize int64, maxAge time.Duration)
}

var _ UploadService = (*engine.Engine)(nil)

func (s *server) uploadRoutes() {
	up, ok := s.svc.(UploadService)
	if !ok {
		return
	}
	h := &uploads{s: s, svc: up}
	s.mux.HandleFunc("OPTIONS /v1/media/{id}", h.options)
	s.mux.HandleFunc("POST /v1/media/{id}", h.create)
	s.mux.HandleFunc("HEAD "+api.UploadsPath+"{id}", h.offset)
	s.mux.HandleFunc("PATCH "+api.UploadsPath+"{id}", h.append)
	s.mux.HandleFunc("DELETE "+api.UploadsPath+"{id}", h.cancel)
}

// isMediaBody reports whether r's body is media, paced as an upload
// (httpserver.go) rather than bounded as JSON.
func isMediaBody(r *http.Request) bool {
	switch r.Method {
	case http.MethodPut, http.MethodPost:
		return strings.HasPrefix(r.URL.Path, "/v1/media/")
	case http.MethodPatch:
		return strings.HasPrefix(r.URL.Path, api.UploadsPath)
	}
	return false
}

type uploads struct {
	s   *server
	svc UploadService
}

// limit is the Upload-Limit field: the media limit and how long an upload
// with no progress is kept.
func (h *uploads) limit() string {
	size, age := h.svc.UploadLimits()
	return fmt.Sprintf("max-size=%d, max-age=%d", size, int64(age/time.Second))
}

func (h *uploads) options(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("Allow", "OPTIONS, GET, HEAD, PUT, POST")
	hd.Set("Accept-Patch", api.PartialUploadType)
	hd.Set("Upload-Limit", h.limit())
	w.WriteHeader(http.StatusNoContent)
}

func (h *uploads) create(w http.ResponseWriter, r *http.Request) {
	complete, ok := parseSFBool(r.Header.Get("Upload-Complete"))
	if !ok {
		h.s.Error(w, r, api.Errorf(api.CodeBadUpload, "POST /v1/media/{id} starts a resumable upload and needs Upload-Complete: ?1 (the body is the whole file) or ?0 (a first part); a whole upload in one request is PUT /v1/media/{id}"))
		return
	}
	length, err := parseSFInt(r.Header.Get("Upload-Length"))
	if err != nil {
		h.s.Error(w, r, err)
		return
	}
	if length < 0 && complete && r.ContentLength >= 0 {
		length = r.ContentLength
	}
	digest, err := parseContentDigest(r.Header.Values("Repr-Digest"))
	if err != nil {
		h.s.Error(w, r, err)
		return
	}
	id := r.PathValue("id")
	body, stop := stoppable(w, r.Body)
	st, err := h.svc.CreateUpload(r.Context(), engine.CreateUpload{
		ID:          id,
		MomentID:    r.URL.Query().Get("moment"),
		Role:        r.URL.Query().Get("role"),
		ContentType: r.Header.Get("Content-Type"),
		Length:      length,
		Digest:      digest,
		Complete:    complete,
		Body:        body,
		Size:        r.ContentLength,
		Stop:        stop,
		Ready: func(st engine.UploadState) {
			// The draft's 104 (Upload Resumption Supported): the client
			// may resume at Location whatever becomes of this request.
			hd := w.Header()
			hd.Set("Location", api.UploadsPath+st.ID)
			hd.Set("Upload-Limit", h.limit())
			w.WriteHeader(104)
		},
	})
	h.answer(w, r, st, err, http.StatusCreated)
}

func (h *uploads) offset(w http.ResponseWriter, r *http.Request) {
	st, err := h.svc.UploadOffset(r.Context(), r.PathValue("id"))
	if err != nil {
		h.s.Error(w, r, err)
		return
	}
	hd := w.Header()
	setState(hd, st)
	hd.Set("Upload-Limit", h.limit())
	hd.Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusNoContent)
}

func (h *uploads) append(w http.ResponseWriter, r *http.Request) {
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt != api.PartialUploadType {
		h.s.Error(w, r, api.Errorf(api.CodeBadUpload, "an append to an upload is sent as Content-Type: %s", api.PartialUploadType))
		return
	}
	complete, ok := parseSFBool(r.Header.Get("Upload-Complete"))
	if !ok {
		h.s.Error(w, r, api.Errorf(api.CodeBadUpload, "an append needs Upload-Complete: ?1 (this part ends the file) or ?0"))
		return
	}
	offset, err := parseSFInt(r.Header.Get("Upload-Offset"))
	if err != nil {
		h.s.Error(w, r, err)
		return
	}
	length, err := parseSFInt(r.Header.Get("Upload-Length"))
	if err != nil {
		h.s.Error(w, r, err)
		return
	}
	body, stop := stoppable(w, r.Body)
	st, err := h.svc.AppendUpload(r.Context(), engine.AppendUpload{
		ID: r.PathValue("id"), Offset: offset, Complete: complete, Length: length,
		Body: body, Size: r.ContentLength, Stop: stop,
	})
	h.answer(w, r, st, err, http.StatusNoContent)
}

// answer ends a creation or an append: the media record once the upload
// is complete (201 stored now, 200 already stored), else the offset held.
func (h *uploads) answer(w http.ResponseWriter, r *http.Request, st engine.UploadState, err error, incomplete int) {
	hd := w.Header()
	if err != nil {
		if st.ID != "" {
			setState(hd, st)
		}
		h.s.Error(w, r, err)
		return
	}
	setState(hd, st)
	if st.Complete {
		writeJSON(w, statusFor(st.Created, http.StatusCreated), api.MediaResponse{Media: st.Media, Created: st.Created})
		return
	}
	hd.Set("Location", api.UploadsPath+st.ID)
	hd.Set("Upload-Limit", h.limit())
	w.WriteHeader(incomplete)
}

func (h *uploads) cancel(w http.ResponseWriter, r *http.Request) {
	if err := h.svc.CancelUpload(r.Context(), r.PathValue("id")); err != nil {
		h.s.Error(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func setState(hd http.Header, st engine.UploadState) {
	hd.Set("Upload-Offset", strconv.FormatInt(st.Offset, 10))
	hd.Set("Upload-Complete", sfBool(st.Complete))
	if st.Length >= 0 {
		hd.Set("Upload-Length", strconv.FormatInt(st.Length, 10))
	}
}

func sfBool(b bool) string {
	if b {
		return "?1"
	}
	return "?0"
}

// parseSFBool reads a structured-field Boolean (RFC 9651): ?1 or ?0.
func parseSFBool(v string) (value, ok bool) {
	switch strings.TrimSpace(v) {
	case "?1":
		return true, true
	case "?0":
		return false, true
	}
	return false, false
}

// parseSFInt reads a non-negative structured-field Integer (RFC 9651: at
// most 15 digits); no header is -1.
func parseSFInt(v string) (int64, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return -1, nil
	}
	if len(v) > 15 || strings.TrimLeft(v, "0123456789") != "" {
		return 0, api.Errorf(api.CodeBadUpload, "%q is not a non-negative integer of at most 15 digits (a structured-field Integer)", v)
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, api.Errorf(api.CodeBadUpload, "%q is not a non-negative integer: %v", v, err)
	}
	return n, nil
}

// stoppable wraps a request body so that stop ends its reading soon, even
// in the middle of a blocked read: a later request for the same upload
// preempts this one (the draft's concurrency rule). What has reached this
// computer is still read and kept, a read at a time that waits at most
// stopDrain, for at most stopDrainMax from the first read after the stop:
// the engine may have been busy with the part's last stretch (a slow
// fsync) while the rest arrived, and a client that resumes would
// otherwise send it again.
func stoppable(w http.ResponseWriter, body io.Reader) (io.Reader, func()) {
	sr := &stopReader{r: body, rc: http.NewResponseController(w)}
	return sr, func() {
		sr.stopped.Store(true)
		_ = sr.rc.SetReadDeadline(time.Now().Add(stopDrain))
	}
}

const (
	// stopDrain is the longest a read of a preempted body waits for
	// bytes: what is already here comes at once.
	stopDrain = 100 * time.Millisecond
	// stopDrainMax bounds the reading of a preempted body, whose client
	// may still be sending.
	stopDrainMax = time.Second
)

var errPreempted = errors.New("a later request for the same upload ended this one")

type stopReader struct {
	r       io.Reader
	rc      *http.ResponseController
	stopped atomic.Bool
	until   time.Time // the end of reading once stopped; only Read uses it
}

func (s *stopReader) Read(p []byte) (int, error) {
	if !s.stopped.Load() {
		n, err := s.r.Read(p)
		if err != nil && err != io.EOF && s.stopped.Load() {
			err = errPreempted
		}
		return n, err
	}
	now := time.Now()
	if s.until.IsZero() {
		s.until = now.Add(stopDrainMax)
	}
	if !now.Before(s.until) {
		return 0, errPreempted
	}
	deadline := now.Add(stopDrain)
	if s.until.Before(deadline) {
		deadline = s.until
	}
	_ = s.rc.SetReadDeadline(deadline)
	n, err := s.r.Read(p)
	if err != nil && err != io.EOF {
		err = errPreempted
	}
	return n, err
}
