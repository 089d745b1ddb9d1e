package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sparkfamily/spark/engine/api"
)

// Resumable uploads [extension]: UploadMedia sends a file by the draft
// "Resumable Uploads for HTTP" when the engine offers it (OPTIONS
// /v1/media/{id} answers Accept-Patch: application/partial-upload), else
// by PUT /v1/media/{id} as the contract has it. Its place is the engine's
// (the upload is named by the media id), so nothing is kept on this side:
// after a drop, or an app restart, the next call asks the engine how many
// bytes it holds and sends the rest.

// Bounds of UploadMedia.
const (
	// ResumableFrom is the size from which a small copy takes the
	// resumable path; an original always does.
	ResumableFrom = 1 << 20
	// PartSize is the most bytes one request of a resumable upload
	// carries, so that progress is known part by part.
	PartSize = 8 << 20
	// maxStalls is how many tries in a row may make no progress before
	// UploadMedia gives up (its caller retries later).
	maxStalls = 4
)

// landWaits are the waits, one after another, before asking again where
// an upload stands when a part whose bytes left this computer before its
// link was cut shows no trace at the engine yet: an engine slow to take
// it up answers the offset from before it, and a part sent again from
// there goes up twice (and is refused once the first lands). About a
// second in all; the engine itself gives a request it is still reading
// two (engine.preemptGrace).
var landWaits = []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 300 * time.Millisecond, 400 * time.Millisecond}

// UploadMedia is one file to upload: a moment's small copy or original.
type UploadMedia struct {
	ID          string // media id (ULID)
	MomentID    string
	Role        string // api.RoleCopy or api.RoleOriginal
	ContentType string // "application/octet-stream" when empty
	// The bytes: From when set, else the file at Path. Size is their
	// length, SHA256 their digest (32 bytes).
	From   io.ReaderAt
	Path   string
	Size   int64
	SHA256 []byte
	// Progress, when set, is told the bytes the engine holds as it
	// acknowledges them (never more than Size, never going back within
	// one call).
	Progress func(held int64)
}

// UploadMedia uploads a file, resuming where the engine's copy of it
// stopped when the engine offers resumable uploads, and reports whether
// the engine stored it now. Tries that fail with the link are repeated
// while they make progress; the error returned after maxStalls tries
// without progress (or a refusal) is the last one.
func (c *Client) UploadMedia(ctx context.Context, u UploadMedia) (*api.Media, bool, error) {
	what := fmt.Sprintf("upload %s %s of moment %s", u.Role, u.ID, u.MomentID)
	if len(u.SHA256) != 32 {
		return nil, false, fmt.Errorf("%s: the file's SHA-256 is missing", what)
	}
	src := u.From
	if src == nil {
		f, err := os.Open(u.Path)
		if err != nil {
			return nil, false, fmt.Errorf("%s: %w", what, err)
		}
		defer f.Close()
		src = f
	}
	resumable := u.Role == api.RoleOriginal || u.Size > ResumableFrom
	if resumable {
		offered, err := c.offersResumable(ctx, u.ID)
		if err != nil {
			return nil, false, fmt.Errorf("%s: %w", what, err)
		}
		resumable = offered
	}
	if !resumable {
		m, created, err := c.PutMedia(ctx, PutMedia{
			ID: u.ID, MomentID: u.MomentID, Role: u.Role, ContentType: u.ContentType,
			Body: io.NewSectionReader(src, 0, u.Size), Size: u.Size, SHA256: u.SHA256,
		})
		if err == nil && u.Progress != nil {
			u.Progress(u.Size)
		}
		return m, created, err
	}
	up := &uploader{c: c, u: u, src: src, what: what, held: -1, cutFrom: -1}
	return up.run(ctx)
}

// offerCache remembers whether the engine offers resumable uploads.
type offerCache struct {
	mu    sync.Mutex
	known bool
	yes   bool
}

// offersResumable asks the engine, once, whether it offers resumable
// uploads: an engine of the contract alone answers OPTIONS 405 (or 404).
func (c *Client) offersResumable(ctx context.Context, id string) (bool, error) {
	c.offers.mu.Lock()
	defer c.offers.mu.Unlock()
	if c.offers.known {
		return c.offers.yes, nil
	}
	req, err := c.newRequest(ctx, http.MethodOptions, "/v1/media/"+esc(id), nil)
	if err != nil {
		return false, err
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return false, fmt.Errorf("cannot reach the engine at %s: %w", c.base, err)
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, maxErrorBody))
	resp.Body.Close()
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		c.offers.yes = acceptsPartial(resp.Header.Values("Accept-Patch"))
	case resp.StatusCode == http.StatusMethodNotAllowed || resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusNotImplemented:
		c.offers.yes = false
	default:
		return false, fmt.Errorf("ask the engine at %s what it offers: %w", c.base, c.parseResponseError(resp))
	}
	c.offers.known = true
	return c.offers.yes, nil
}

func acceptsPartial(values []string) bool {
	for _, v := range values {
		for t := range strings.SplitSeq(v, ",") {
			mt, _, _ := strings.Cut(strings.TrimSpace(t), ";")
			if strings.EqualFold(strings.TrimSpace(mt), api.PartialUploadType) {
				return true
			}
		}
	}
	return false
}

// uploader is one UploadMedia call on the resumable path.
type uploader struct {
	c    *Client
	u    UploadMedia
	src  io.ReaderAt
	what string
	held int64 // the offset last reported to Progress
	// cutFrom is the offset of the last part whose link was cut after
	// some of its bytes had left, until the engine is seen past it (or it
	// was given time to land); -1: none.
	cutFrom int64
}

// answer is what one request of the upload learnt.
type answer struct {
	status   int
	sent     int64 // bytes of the part the transport took, when the link failed
	offset   int64 // -1: not told
	complete bool
	media    *api.MediaResponse
	err      error // a refusal (*api.Error) or a failed link
}

func (up *uploader) run(ctx context.Context) (*api.Media, bool, error) {
	stalls := 0
	var last error
	for {
		before := up.held
		m, created, done, err := up.try(ctx)
		if done {
			return m, created, err
		}
		last = err
		if up.held > before {
			stalls = 0
		} else {
			stalls++
		}
		if stalls >= maxStalls {
			return nil, false, last
		}
		wait := time.Duration(stalls) * 250 * time.Millisecond
		select {
		case <-ctx.Done():
			return nil, false, fmt.Errorf("%s: %w", up.what, ctx.Err())
		case <-time.After(wait):
		}
	}
}

// try is one pass: where does the engine stand, then the rest in parts.
// done is true when the upload ended (stored, or refused for good).
func (up *uploader) try(ctx context.Context) (m *api.Media, created, done bool, err error) {
	a := up.send(ctx, http.MethodHead, api.UploadsPath+esc(up.u.ID), 0, 0, false)
	var offset int64
	switch {
	case a.err == nil && a.complete:
		// Stored (by an earlier call whose answer was lost): the record.
		a = up.create(ctx, 0, false)
		if a.err != nil {
			return nil, false, final(a.err), a.err
		}
		return a.media.Media, false, true, nil
	case a.err == nil:
		offset = a.offset
		if up.cutFrom >= 0 && offset <= up.cutFrom {
			var complete bool
			offset, complete, err = up.awaitCutPart(ctx, offset)
			if err != nil {
				return nil, false, final(err), err
			}
			if complete {
				// The cut part was the last and it landed: the next try
				// fetches the record.
				up.cutFrom = -1
				return nil, false, false, nil
			}
		}
		up.cutFrom = -1
	case api.ErrorCode(a.err) == api.CodeUnknownUpload || statusOf(a.err) == http.StatusNotFound:
		// The creation carries no bytes (the draft allows it): its answer
		// comes at once, and the parts follow on their own requests. (A
		// creation carrying the file would be answered 104 while its
		// bytes come, and a link cut before that answer loses the bytes
		// on their way: the engine's write meets a closed connection,
		// which resets it.) An empty file is uploaded whole.
		a = up.create(ctx, 0, up.u.Size == 0)
		if a.err == nil && a.complete {
			return a.media.Media, a.media.Created || a.status == http.StatusCreated, true, nil
		}
		if a.err != nil && api.ErrorCode(a.err) != api.CodeUploadOffsetMismatch {
			return nil, false, final(a.err), a.err
		}
		offset = max(a.offset, 0)
	default:
		return nil, false, final(a.err), a.err
	}
	for {
		if offset < 0 || offset > up.u.Size {
			return nil, false, true, fmt.Errorf("%s: %w: the engine holds %d bytes of a %d-byte file", up.what, ErrBadAnswer, offset, up.u.Size)
		}
		n := min(up.u.Size-offset, PartSize)
		last := offset+n == up.u.Size
		a = up.send(ctx, http.MethodPatch, api.UploadsPath+esc(up.u.ID), offset, n, last)
		if a.status == 0 && a.sent > 0 {
			up.cutFrom = offset // cut on its way: it may yet land
		}
		if a.err != nil {
			if api.ErrorCode(a.err) == api.CodeUploadOffsetMismatch && a.offset >= 0 {
				offset = a.offset
				continue
			}
			return nil, false, final(a.err), a.err
		}
		if a.complete {
			return a.media.Media, a.media.Created || a.status == http.StatusCreated, true, nil
		}
		if a.offset < 0 {
			a.offset = offset + n
		}
		offset = a.offset
	}
}

// awaitCutPart asks again where the upload stands, after each of
// landWaits, until the engine holds more than the part cut off at
// up.cutFrom began at, or the waits are over: offset is what the engine
// last answered. A complete upload (the cut part was the last, and it
// landed) is reported as such.
func (up *uploader) awaitCutPart(ctx context.Context, offset int64) (int64, bool, error) {
	for _, d := range landWaits {
		select {
		case <-ctx.Done():
			return offset, false, fmt.Errorf("%s: %w", up.what, ctx.Err())
		case <-time.After(d):
		}
		a := up.send(ctx, http.MethodHead, api.UploadsPath+esc(up.u.ID), 0, 0, false)
		switch {
		case a.err != nil:
			return offset, false, a.err
		case a.complete:
			return a.offset, true, nil
		case a.offset > up.cutFrom:
			return a.offset, false, nil
		}
	}
	return offset, false, nil
}

// final reports whether err ends the upload for good: the engine refused
// it for a reason a new try does not change. Link failures, 5xx, 408, 429
// and a busy upload are tried again.
func final(err error) bool {
	ae, ok := api.AsError(err)
	if !ok {
		return false
	}
	switch {
	case ae.Status >= 500, ae.Status == http.StatusRequestTimeout, ae.Status == http.StatusTooManyRequests:
		return false
	case ae.Code == api.CodeUploadBusy, ae.Code == api.CodeUnknownUpload, ae.Code == api.CodeUploadOffsetMismatch:
		return false
	}
	return true
}

func statusOf(err error) int {
	if ae, ok := api.AsError(err); ok {
		return ae.Status
	}
	return 0
}

// create sends the upload creation with the file's first n bytes.
func (up *uploader) create(ctx context.Context, n int64, complete bool) answer {
	q := url.Values{}
	q.Set("moment", up.u.MomentID)
	q.Set("role", up.u.Role)
	return up.send(ctx, http.MethodPost, "/v1/media/"+esc(up.u.ID)+"?"+q.Encode(), 0, n, complete)
}

// send makes one request of the upload: a HEAD, or a POST or PATCH with
// the file's bytes [offset, offset+n).
func (up *uploader) send(ctx context.Context, method, path string, offset, n int64, complete bool) answer {
	req, err := up.c.newRequest(ctx, method, path, nil)
	if err != nil {
		return answer{offset: -1, err: err}
	}
	h := req.Header
	switch method {
	case http.MethodPost:
		ct := up.u.ContentType
		if ct == "" {
			ct = "application/octet-stream"
		}
		h.Set("Content-Type", ct)
		h.Set("Upload-Length", strconv.FormatInt(up.u.Size, 10))
		h.Set("Repr-Digest", ContentDigest(up.u.SHA256))
	case http.MethodPatch:
		h.Set("Content-Type", api.PartialUploadType)
		h.Set("Upload-Offset", strconv.FormatInt(offset, 10))
	}
	var body *countingReader
	if method != http.MethodHead {
		h.Set("Upload-Complete", sfBool(complete))
		req.ContentLength = n
		if n == 0 {
			req.Body = http.NoBody
		} else {
			// No GetBody: the transport never replays a part by itself.
			body = &countingReader{r: io.NewSectionReader(up.src, offset, n)}
			req.Body = io.NopCloser(body)
		}
	}
	resp, err := up.c.hc.Do(req)
	if err != nil {
		a := answer{offset: -1, err: fmt.Errorf("%s: cannot reach the engine at %s: %w", up.what, up.c.base, err)}
		if body != nil {
			a.sent = body.n.Load()
		}
		return a
	}
	defer resp.Body.Close()
	a := answer{status: resp.StatusCode, offset: -1}
	if v := resp.Header.Get("Upload-Offset"); v != "" {
		if o, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil && o >= 0 {
			a.offset = o
		}
	}
	a.complete = strings.TrimSpace(resp.Header.Get("Upload-Complete")) == "?1"
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		a.err = fmt.Errorf("%s: %w", up.what, up.c.parseResponseError(resp))
		a.complete = false
		return a
	}
	if a.complete && method != http.MethodHead {
		var mr api.MediaResponse
		if err := decodeJSON(resp.Body, resp.ContentLength, MaxSmallBytes, &mr); err != nil || mr.Media == nil {
			a.err = fmt.Errorf("%s: reading the engine's answer (%d): %w", up.what, resp.StatusCode, errors.Join(err, ErrBadAnswer))
			a.complete = false
			return a
		}
		a.media = &mr
		up.report(up.u.Size)
		return a
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if a.offset >= 0 {
		up.report(a.offset)
	}
	return a
}

// countingReader counts the bytes read from r: what of a part the
// transport took to send (read on its own goroutine).
type countingReader struct {
	r io.Reader
	n atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// report tells Progress the bytes the engine holds, when they grew.
func (up *uploader) report(held int64) {
	held = min(held, up.u.Size)
	if held <= up.held {
		return
	}
	up.held = held
	if up.u.Progress != nil {
		up.u.Progress(held)
	}
}

func sfBool(b bool) string {
	if b {
		return "?1"
	}
	return "?0"
}
