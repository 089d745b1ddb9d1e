package client

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/url"

	"github.com/sparkfamily/spark/engine/api"
)

// PutMedia is one upload: the bytes of a moment's small copy or original.
type PutMedia struct {
	ID          string // media id (ULID)
	MomentID    string
	Role        string // api.RoleCopy or api.RoleOriginal
	ContentType string // e.g. "image/jpeg"; "application/octet-stream" when empty

	// Body is streamed as is; it is never held in memory whole. Size is its
	// exact length, sent as Content-Length.
	Body io.Reader
	Size int64

	// SHA256, when set, is sent as Content-Digest (RFC 9530) so the engine
	// refuses bytes damaged on the way (400 digest_mismatch).
	SHA256 []byte

	// Progress, when set, is told the bytes sent so far as they go.
	Progress func(sent int64)
}

// ContentDigest formats a SHA-256 sum as an RFC 9530 Content-Digest value.
func ContentDigest(sum []byte) string {
	return "sha-256=:" + base64.StdEncoding.EncodeToString(sum) + ":"
}

// PutMedia uploads media bytes (PUT /v1/media/{id}). It reports whether the
// engine stored them now (false when the same bytes were already there).
func (c *Client) PutMedia(ctx context.Context, m PutMedia) (*api.Media, bool, error) {
	what := fmt.Sprintf("upload %s %s of moment %s", m.Role, m.ID, m.MomentID)
	q := url.Values{}
	q.Set("moment", m.MomentID)
	q.Set("role", m.Role)
	req, err := c.newRequest(ctx, http.MethodPut, "/v1/media/"+esc(m.ID)+"?"+q.Encode(), nil)
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", what, err)
	}
	ct := m.ContentType
	if ct == "" {
		ct = "application/octet-stream"
	}
	req.Header.Set("Content-Type", ct)
	if len(m.SHA256) > 0 {
		req.Header.Set("Content-Digest", ContentDigest(m.SHA256))
	}
	req.ContentLength = m.Size
	if m.Size == 0 || m.Body == nil {
		req.Body = http.NoBody
	} else {
		var r io.Reader = m.Body
		if m.Progress != nil {
			r = &progressReader{r: r, fn: m.Progress}
		}
		// A plain ReadCloser (no GetBody) keeps the transport from
		// replaying the body on its own: the drain decides retries.
		req.Body = io.NopCloser(r)
	}
	var out api.MediaResponse
	status, err := c.do(req, what, &out, MaxSmallBytes)
	if err != nil {
		return nil, false, err
	}
	return out.Media, status == http.StatusCreated || out.Created, nil
}

// progressReader reports the bytes read through it.
type progressReader struct {
	r    io.Reader
	fn   func(int64)
	sent int64
}

func (p *progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	if n > 0 {
		p.sent += int64(n)
		p.fn(p.sent)
	}
	return n, err
}
