package server

import (
	"encoding/base64"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/sparkfamily/spark/engine/api"
)

func (s *server) putMedia(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	digest, err := parseContentDigest(r.Header.Values("Content-Digest"))
	if err != nil {
		s.Error(w, r, err)
		return
	}
	// The body streams straight to the engine's media store, which hashes
	// it on the way to a temp file; it is never held whole in memory.
	m, created, err := s.svc.PutMedia(r.Context(), PutMedia{
		ID:          r.PathValue("id"),
		MomentID:    q.Get("moment"),
		Role:        q.Get("role"),
		ContentType: r.Header.Get("Content-Type"),
		Body:        r.Body,
		Digest:      digest,
		Size:        r.ContentLength,
	})
	if err != nil {
		s.Error(w, r, err)
		return
	}
	writeJSON(w, statusFor(created, http.StatusCreated), api.MediaResponse{Media: m, Created: created})
}

// parseContentDigest reads the sha-256 digest of RFC 9530 Content-Digest
// header values, a structured-field dictionary such as
// `sha-256=:<base64>:, sha-512=:<base64>:`. Algorithms other than sha-256
// are ignored; no header, or none with sha-256, is a nil digest. A sha-256
// member that is not a base64 byte sequence, or a header that is not a
// dictionary at all, is 400 bad_digest; the engine checks the digest's
// length.
func parseContentDigest(values []string) ([]byte, error) {
	var digest []byte
	for _, v := range values {
		for member := range strings.SplitSeq(v, ",") {
			member = strings.TrimSpace(member)
			if member == "" {
				continue
			}
			// Parameters (";key=value") may follow a member's value.
			member, _, _ = strings.Cut(member, ";")
			key, val, ok := strings.Cut(member, "=")
			if !ok {
				return nil, badDigest("%q is not a key=value member", member)
			}
			if strings.TrimSpace(key) != "sha-256" {
				continue
			}
			val = strings.TrimSpace(val)
			if len(val) < 2 || val[0] != ':' || val[len(val)-1] != ':' {
				return nil, badDigest("the sha-256 value must be base64 between colons, like sha-256=:<base64>:")
			}
			b, err := base64.StdEncoding.DecodeString(val[1 : len(val)-1])
			if err != nil {
				return nil, badDigest("the sha-256 value is not valid base64: %v", err)
			}
			digest = b
		}
	}
	return digest, nil
}

func badDigest(format string, args ...any) error {
	e := api.Errorf(api.CodeBadDigest, format, args...)
	e.Message = "Content-Digest is malformed (RFC 9530): " + e.Message
	return e
}

func (s *server) getMedia(w http.ResponseWriter, r *http.Request) {
	m, f, err := s.svc.OpenMedia(r.Context(), r.PathValue("id"))
	if err != nil {
		s.Error(w, r, err)
		return
	}
	defer f.Close()
	h := w.Header()
	h.Set("ETag", `"`+m.SHA256+`"`)
	h.Set("Content-Type", ServedType(m.ContentType))
	// A media id's bytes never change (a different upload is refused with
	// media_conflict), so a client may keep them as long as it likes.
	h.Set("Cache-Control", "private, max-age=31536000, immutable")
	h.Set("X-Content-Type-Options", "nosniff")
	extendAnswer(w, m.Size)
	LimitRanges(r)
	// ServeContent answers Range, If-Range, If-None-Match and HEAD from the ETag.
	http.ServeContent(w, r, "", time.Time{}, f)
}

// MaxRanges is the most ranges one request may ask for [extension], as
// nginx's max_ranges: a Range header with more is ignored, and the whole
// file is served (200), which RFC 9110 (section 14.2) allows. 70,000
// one-byte ranges once made a 9.7 MB answer and 2.2 s of CPU; a client
// asking for the whole file gets no more than a plain GET gives anyone.
const MaxRanges = 16

// LimitRanges drops a Range header of more than MaxRanges ranges. The
// app's media handler applies it too.
func LimitRanges(r *http.Request) {
	n := 0
	for _, v := range r.Header.Values("Range") {
		n += strings.Count(v, ",") + 1
	}
	if n > MaxRanges {
		r.Header.Del("Range")
	}
}

// ServedType is the Content-Type media is served with: the uploaded type
// when it is an image (lower-cased, without parameters), else
// application/octet-stream, so that no upload is ever rendered as a page or
// run as a script from the engine's origin. SVG is an image type that can
// carry script, so it is served as bytes too. The app's media handler
// serves by the same rule, always with X-Content-Type-Options: nosniff.
func ServedType(uploaded string) string {
	const bytes = "application/octet-stream"
	mt, _, err := mime.ParseMediaType(uploaded)
	if err != nil {
		return bytes
	}
	sub, ok := strings.CutPrefix(mt, "image/")
	if !ok || sub == "" || sub == "svg+xml" {
		return bytes
	}
	return mt
}
