// Package client speaks the Spark engine's v1 wire contract over HTTP
// (docs/API.md): one method per route, typed with the values of package
// api.
//
// Every non-2xx answer comes back as an *api.Error with Status and RetryAfter
// filled, so a caller (the outbox's drain) decides whether to wait or park in
// one place by looking at the status alone. Anything that is not an *api.Error
// is a failure to talk to the engine at all (connection refused, reset, a
// reply cut short, a timeout) and is wrapped with what was being done.
package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/internal/retry"
	"github.com/sparkfamily/spark/internal/version"
)

// Client talks to one engine. It is safe for concurrent use.
type Client struct {
	base  string
	token string
	hc    *http.Client

	// Now is the clock used to turn a Retry-After date into a duration.
	Now func() time.Time

	// offers is whether the engine offers resumable uploads, once asked
	// (upload.go).
	offers offerCache
}

// New returns a client of the engine at baseURL (for example
// "http://127.0.0.1:8787"; a trailing slash or "/v1" suffix is tolerated)
// that sends token as its bearer token. A nil hc means NewHTTPClient's
// with its defaults.
func New(baseURL, token string, hc *http.Client) *Client {
	base := strings.TrimRight(baseURL, "/")
	base = strings.TrimSuffix(base, "/v1")
	if hc == nil {
		hc = defaultHTTPClient()
	}
	return &Client{base: base, token: token, hc: hc, Now: time.Now}
}

// BaseURL returns the engine's base URL, without a trailing slash.
func (c *Client) BaseURL() string { return c.base }

// userAgent names this client in the engine's logs.
var userAgent = "spark-client/" + version.Version

// newRequest builds a request to path (which starts with "/v1/") with the
// bearer token and, when in is not nil, a JSON body.
func (c *Client) newRequest(ctx context.Context, method, path string, in any) (*http.Request, error) {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return nil, fmt.Errorf("encode request: %w", err)
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, body)
	if err != nil {
		return nil, fmt.Errorf("bad engine URL %q: %w", c.base, err)
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", userAgent)
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	if m, _ := ctx.Value(memberKey{}).(string); m != "" {
		req.Header.Set(api.MemberHeader, m)
	}
	return req, nil
}

type memberKey struct{}

// WithMember returns ctx that makes every call made with it write for the
// family member member (the api.MemberHeader header): an engine honours it
// for an admin token, whose ops then keep the token's name as author and
// name member, and ignores it for a device token, which writes only as its
// own member. push sends each op's member so. An empty member sends none.
func WithMember(ctx context.Context, member string) context.Context {
	return context.WithValue(ctx, memberKey{}, member)
}

// Bounds of the answers a client reads: the engine's pages stop at a
// byte budget of 1 MiB past their first item (docs/API.md), so an answer
// over these is not an engine's, and reading it stops there.
const (
	// MaxAnswerBytes bounds a JSON answer: a page of ops, moments or
	// search results, a moment, the kept phrases.
	MaxAnswerBytes = 16 << 20
	// MaxSmallBytes bounds an answer that holds one small value: health,
	// an upload's media.
	MaxSmallBytes = 64 << 10
	// MaxSeq is the largest seq an engine may claim its log reaches: at
	// an op a second, 136 years of them. A claim beyond it is refused
	// (ErrBadAnswer) rather than followed.
	MaxSeq = 1 << 32
)

// ErrTooLarge matches (errors.Is) the error of an answer larger than its
// bound: nothing of it is used.
var ErrTooLarge = errors.New("client: the engine's answer is larger than Spark reads")

// ErrBadAnswer matches (errors.Is) the error of an answer that no engine
// sends (a page longer than asked, a log claiming an absurd seq): nothing
// of it is used.
var ErrBadAnswer = errors.New("client: the engine's answer breaks the wire contract")

// callTimeout bounds a whole JSON call (not media): the engine's own
// bounds keep a sound one far below it.
const callTimeout = 5 * time.Minute

// do sends req, turns a non-2xx answer into an *api.Error and decodes a 2xx
// JSON body of at most max bytes into out. It returns the status of a 2xx
// answer, since some routes tell "created" by it (201/202 versus 200).
func (c *Client) do(req *http.Request, what string, out any, max int64) (int, error) {
	resp, err := c.hc.Do(req)
	if err != nil {
		return 0, fmt.Errorf("%s: cannot reach the engine at %s: %w", what, c.base, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return resp.StatusCode, fmt.Errorf("%s: %w", what, c.parseResponseError(resp))
	}
	if out != nil {
		if err := decodeJSON(resp.Body, resp.ContentLength, max, out); err != nil {
			return resp.StatusCode, fmt.Errorf("%s: reading the engine's answer (%d): %w", what, resp.StatusCode, err)
		}
	}
	// Drain what is left so the connection can be reused.
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	return resp.StatusCode, nil
}

// maxErrorBody bounds how much of an error answer is read.
const maxErrorBody = 64 << 10

// decodeJSON decodes one JSON value of at most max bytes from r into out;
// length is the answer's Content-Length (-1 unknown). A longer answer is
// ErrTooLarge, found from its Content-Length or as it is read, so no more
// than max bytes are ever held.
func decodeJSON(r io.Reader, length, max int64, out any) error {
	if length > max {
		return fmt.Errorf("%w: %d bytes, at most %d", ErrTooLarge, length, max)
	}
	if err := json.NewDecoder(&capped{r: r, left: max, max: max}).Decode(out); err != nil {
		return err
	}
	return nil
}

// capped reads r up to left bytes; reading past them is ErrTooLarge.
type capped struct {
	r    io.Reader
	left int64
	max  int64
}

func (c *capped) Read(p []byte) (int, error) {
	if c.left <= 0 {
		// One byte more tells a body that ends here from a longer one.
		var b [1]byte
		n, err := c.r.Read(b[:])
		if n > 0 {
			return 0, fmt.Errorf("%w: more than %d bytes", ErrTooLarge, c.max)
		}
		return 0, err
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}

// parseResponseError turns a non-2xx answer into an *api.Error. A contract
// error body {"error": {"code", "message"}} gives the code and message; any
// other body (a proxy's HTML page, plain text) still gives an error naming
// the status, with code "http_<status>".
func (c *Client) parseResponseError(resp *http.Response) *api.Error {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	e := &api.Error{Status: resp.StatusCode, RetryAfter: retry.ParseRetryAfter(resp.Header.Get("Retry-After"), c.Now())}
	var body api.ErrorBody
	if json.Unmarshal(b, &body) == nil && body.Error != nil && body.Error.Code != "" {
		e.Code = body.Error.Code
		e.Message = body.Error.Message
		if e.Message == "" {
			e.Message = "the engine gave no message"
		}
		return e
	}
	e.Code = "http_" + strconv.Itoa(resp.StatusCode)
	text := strings.Join(strings.Fields(string(b)), " ")
	if len(text) > 200 {
		text = text[:200] + "..."
	}
	if text == "" {
		e.Message = fmt.Sprintf("the engine answered %d %s with no explanation", resp.StatusCode, http.StatusText(resp.StatusCode))
	} else {
		e.Message = fmt.Sprintf("the engine answered %d %s: %s", resp.StatusCode, http.StatusText(resp.StatusCode), text)
	}
	return e
}

// esc escapes one path segment (phrase ids hold spaces and any letters).
func esc(s string) string { return url.PathEscape(s) }

// call is the shape of every JSON route: its answer is at most
// MaxAnswerBytes, and it ends within callTimeout.
func (c *Client) call(ctx context.Context, method, path, what string, in, out any) (int, error) {
	return c.callMax(ctx, method, path, what, in, out, MaxAnswerBytes)
}

// callMax is call with an answer of at most max bytes.
func (c *Client) callMax(ctx context.Context, method, path, what string, in, out any, max int64) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	req, err := c.newRequest(ctx, method, path, in)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", what, err)
	}
	return c.do(req, what, out, max)
}
