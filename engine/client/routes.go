package client

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"

	"github.com/sparkfamily/spark/engine/api"
)

// CreateMoment creates a moment (POST /v1/moments). It reports whether the
// engine created it now (false when the request id or moment id was known).
func (c *Client) CreateMoment(ctx context.Context, in api.CreateMomentRequest) (*api.Moment, bool, error) {
	var out api.MomentResponse
	status, err := c.call(ctx, http.MethodPost, "/v1/moments", "create moment "+in.ID, in, &out)
	if err != nil {
		return nil, false, err
	}
	created := status == http.StatusCreated
	if out.Created != nil {
		created = *out.Created
	}
	return out.Moment, created, nil
}

// Moment fetches one moment, deleted ones too (GET /v1/moments/{id}).
func (c *Client) Moment(ctx context.Context, id string) (*api.Moment, error) {
	var out api.MomentResponse
	if _, err := c.call(ctx, http.MethodGet, "/v1/moments/"+esc(id), "get moment "+id, nil, &out); err != nil {
		return nil, err
	}
	return out.Moment, nil
}

// Moments lists live moments newest first (GET /v1/moments). limit 0 means
// the engine's default; before "" starts at the newest. The returned cursor
// is nil on the last page.
func (c *Client) Moments(ctx context.Context, limit int, before string) ([]api.Moment, *string, error) {
	return c.moments(ctx, limit, before, false)
}

// DeletedMoments lists Recently deleted, as Moments lists the live ones
// (GET /v1/moments?deleted=true [extension]): the moments deleted in the
// last api.RecentlyDeletedFor, which RestoreMoment brings back.
func (c *Client) DeletedMoments(ctx context.Context, limit int, before string) ([]api.Moment, *string, error) {
	return c.moments(ctx, limit, before, true)
}

func (c *Client) moments(ctx context.Context, limit int, before string, deleted bool) ([]api.Moment, *string, error) {
	q := url.Values{}
	if deleted {
		q.Set("deleted", "true")
	}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	if before != "" {
		q.Set("before", before)
	}
	path := "/v1/moments"
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	var out api.MomentsPage
	what := "list moments"
	if deleted {
		what = "list the moments recently deleted"
	}
	if _, err := c.call(ctx, http.MethodGet, path, what, nil, &out); err != nil {
		return nil, nil, err
	}
	return out.Moments, out.Next, nil
}

// EditMoment changes a moment's caption or time (PATCH /v1/moments/{id}):
// the moment, and true when the edit brought it back from Recently
// deleted [extension].
func (c *Client) EditMoment(ctx context.Context, id string, in api.EditMomentRequest) (*api.Moment, bool, error) {
	var out api.EditMomentResponse
	if _, err := c.call(ctx, http.MethodPatch, "/v1/moments/"+esc(id), "edit moment "+id, in, &out); err != nil {
		return nil, false, err
	}
	return out.Moment, out.Restored, nil
}

// DeleteMoment deletes a moment (DELETE /v1/moments/{id}); false means it
// was already deleted.
func (c *Client) DeleteMoment(ctx context.Context, id string) (bool, error) {
	var out api.DeleteResponse
	if _, err := c.call(ctx, http.MethodDelete, "/v1/moments/"+esc(id), "delete moment "+id, nil, &out); err != nil {
		return false, err
	}
	return out.Deleted, nil
}

// RestoreMoment brings a deleted moment back (POST
// /v1/moments/{id}/restore [extension]); false means it was not deleted.
func (c *Client) RestoreMoment(ctx context.Context, id string) (*api.Moment, bool, error) {
	var out api.RestoreResponse
	if _, err := c.call(ctx, http.MethodPost, "/v1/moments/"+esc(id)+"/restore", "restore moment "+id, nil, &out); err != nil {
		return nil, false, err
	}
	return out.Moment, out.Restored, nil
}

// PutWords keeps the words found in a moment's photo (POST
// /v1/moments/{id}/words [extension]): the words the moment keeps (the
// first sent for it), and whether this call wrote them.
func (c *Client) PutWords(ctx context.Context, momentID string, w api.Words) (*api.Words, bool, error) {
	var out api.WordsResponse
	if _, err := c.call(ctx, http.MethodPost, "/v1/moments/"+esc(momentID)+"/words", "keep the words of moment "+momentID, w, &out); err != nil {
		return nil, false, err
	}
	return out.Words, out.Created, nil
}

// StartTurn starts a practical turn on a moment (POST /v1/moments/{id}/turns).
// A repeat of the same client request id returns the turn already started.
func (c *Client) StartTurn(ctx context.Context, momentID string, in api.StartTurnRequest) (*api.Turn, bool, error) {
	if in.Mode == "" {
		in.Mode = api.ModePractical
	}
	var out api.TurnResponse
	status, err := c.call(ctx, http.MethodPost, "/v1/moments/"+esc(momentID)+"/turns", "start turn on moment "+momentID, in, &out)
	if err != nil {
		return nil, false, err
	}
	created := status == http.StatusAccepted || status == http.StatusCreated
	if out.Created != nil {
		created = *out.Created
	}
	return out.Turn, created, nil
}

// Turn fetches one turn (GET /v1/turns/{id}).
func (c *Client) Turn(ctx context.Context, id string) (*api.Turn, error) {
	var out api.TurnResponse
	if _, err := c.call(ctx, http.MethodGet, "/v1/turns/"+esc(id), "get turn "+id, nil, &out); err != nil {
		return nil, err
	}
	return out.Turn, nil
}

// StartJob starts a high-quality job, one turn per brain seat
// (POST /v1/moments/{id}/jobs).
func (c *Client) StartJob(ctx context.Context, momentID, jobID string) ([]api.Turn, bool, error) {
	var out api.JobResponse
	if _, err := c.call(ctx, http.MethodPost, "/v1/moments/"+esc(momentID)+"/jobs", "start job "+jobID, api.StartJobRequest{ID: jobID}, &out); err != nil {
		return nil, false, err
	}
	return out.Turns, out.Created, nil
}

// StartRecall starts a quick recall (POST /v1/recalls).
func (c *Client) StartRecall(ctx context.Context, recallID string) (*api.Moment, *api.Turn, bool, error) {
	var out api.RecallResponse
	if _, err := c.call(ctx, http.MethodPost, "/v1/recalls", "start recall "+recallID, api.StartRecallRequest{ID: recallID}, &out); err != nil {
		return nil, nil, false, err
	}
	return out.Moment, out.Turn, out.Created, nil
}

// KeepPhrase keeps a phrase (POST /v1/phrases).
func (c *Client) KeepPhrase(ctx context.Context, in api.KeepPhraseRequest) (*api.Phrase, bool, error) {
	var out api.PhraseResponse
	if _, err := c.call(ctx, http.MethodPost, "/v1/phrases", "keep phrase", in, &out); err != nil {
		return nil, false, err
	}
	return out.Phrase, out.Created, nil
}

// Phrases lists the active kept phrases (GET /v1/phrases).
//
// An engine pages its phrases [extension]: every page is read, each one
// bounded as any answer is, up to maxPhrases in all; an engine that pages
// none answers the whole list at once, as the contract says.
func (c *Client) Phrases(ctx context.Context) ([]api.Phrase, error) {
	var all []api.Phrase
	path := "/v1/phrases"
	var after uint64
	for {
		var out api.PhrasesResponse
		if _, err := c.call(ctx, http.MethodGet, path, "list phrases", nil, &out); err != nil {
			return nil, err
		}
		all = append(all, out.Phrases...)
		if out.Next == nil || len(out.Phrases) == 0 {
			return all, nil
		}
		if len(all) > maxPhrases {
			return nil, fmt.Errorf("list phrases: the engine offers more than %d kept phrases", maxPhrases)
		}
		if *out.Next <= after {
			return nil, fmt.Errorf("list phrases: the engine's next page (%d) does not move on from %d", *out.Next, after)
		}
		after = *out.Next
		path = "/v1/phrases?after=" + strconv.FormatUint(after, 10)
	}
}

// maxPhrases bounds the kept phrases Phrases reads: far more than a family
// keeps, far less than would exhaust this computer.
const maxPhrases = 200_000

// RemovePhrase removes a kept phrase (DELETE /v1/phrases/{id}).
func (c *Client) RemovePhrase(ctx context.Context, id string) (bool, error) {
	var out api.RemovedResponse
	if _, err := c.call(ctx, http.MethodDelete, "/v1/phrases/"+esc(id), "remove phrase "+id, nil, &out); err != nil {
		return false, err
	}
	return out.Removed, nil
}

// Ops reads the log after seq (GET /v1/ops). limit 0 means the engine's
// default. The returned cursor is nil when nothing follows.
func (c *Client) Ops(ctx context.Context, after uint64, limit int) ([]api.Op, *uint64, error) {
	q := url.Values{}
	q.Set("after", strconv.FormatUint(after, 10))
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	var out api.OpsPage
	if _, err := c.call(ctx, http.MethodGet, "/v1/ops?"+q.Encode(), "read ops", nil, &out); err != nil {
		return nil, nil, err
	}
	if err := CheckOpsPage(out, after, limit); err != nil {
		return nil, nil, fmt.Errorf("read ops after seq %d: %w", after, err)
	}
	return out.Ops, out.Next, nil
}

// DecodeOpsPage reads a page of ops (GET /v1/ops's answer) as Ops does:
// at most MaxAnswerBytes, checked by CheckOpsPage.
func DecodeOpsPage(r io.Reader, after uint64, limit int) (api.OpsPage, error) {
	var out api.OpsPage
	if err := decodeJSON(r, -1, MaxAnswerBytes, &out); err != nil {
		return api.OpsPage{}, err
	}
	return out, CheckOpsPage(out, after, limit)
}

// CheckOpsPage refuses a page of ops asked after seq after with limit
// (0: the engine's default) that no engine serves: more ops than asked,
// seqs not rising, a next cursor that does not move on, or a seq beyond
// MaxSeq. Whether the seqs follow on without a
// gap, and what each op holds, is for the reader of the log to check.
func CheckOpsPage(p api.OpsPage, after uint64, limit int) error {
	if limit <= 0 || limit > api.MaxOpsLimit {
		limit = api.MaxOpsLimit
	}
	if len(p.Ops) > limit {
		return fmt.Errorf("%w: a page of %d ops, asked for at most %d", ErrBadAnswer, len(p.Ops), limit)
	}
	last := after
	for i, op := range p.Ops {
		if op.Seq > MaxSeq {
			return fmt.Errorf("%w: an op at seq %d, beyond the %d a log may reach", ErrBadAnswer, op.Seq, uint64(MaxSeq))
		}
		if i > 0 && op.Seq <= last {
			return fmt.Errorf("%w: op %d follows op %d", ErrBadAnswer, op.Seq, last)
		}
		last = op.Seq
	}
	if p.Next != nil && (*p.Next <= after || *p.Next > MaxSeq) {
		return fmt.Errorf("%w: the page after seq %d points on to seq %d", ErrBadAnswer, after, *p.Next)
	}
	return nil
}

// CheckToken tells whether the engine accepts the client's token, with the
// cheapest call that needs one: the log's ops after seq, at most one. Give
// the engine's last seq, as its Health says, and the answer holds no op.
// It returns nil, or the call's error: an *api.Error with Status 401 or 403
// when the engine refuses the token (retry.Refused).
func (c *Client) CheckToken(ctx context.Context, seq uint64) error {
	_, _, err := c.Ops(ctx, seq, 1)
	return err
}

// Me asks which family member the engine takes the client's token for,
// and its scope (GET /v1/me [extension]). An engine older than the route
// answers 404: an *api.Error with Status 404, and the member is unknown.
func (c *Client) Me(ctx context.Context) (*api.Me, error) {
	var out api.Me
	if _, err := c.callMax(ctx, http.MethodGet, api.MePath, "ask who this token is", nil, &out, MaxSmallBytes); err != nil {
		return nil, err
	}
	return &out, nil
}

// Health asks whether the engine is up (GET /v1/health; no token needed).
func (c *Client) Health(ctx context.Context) (*api.Health, error) {
	var out api.Health
	if _, err := c.callMax(ctx, http.MethodGet, "/v1/health", "health check", nil, &out, MaxSmallBytes); err != nil {
		return nil, err
	}
	if out.Seq > MaxSeq {
		return nil, fmt.Errorf("health check: %w: the engine says its log reaches seq %d, beyond the %d a log may reach; Spark does not follow it", ErrBadAnswer, out.Seq, uint64(MaxSeq))
	}
	return &out, nil
}

// MediaURL is the address of a media file's bytes (GET /v1/media/{id}).
// It needs the bearer token, so it suits clients that add it themselves.
func (c *Client) MediaURL(id string) string { return c.base + "/v1/media/" + esc(id) }

// GetMedia opens a media file's bytes (GET /v1/media/{id}). The caller
// closes the reader.
func (c *Client) GetMedia(ctx context.Context, id string) (io.ReadCloser, error) {
	what := "get media " + id
	req, err := c.newRequest(ctx, http.MethodGet, "/v1/media/"+esc(id), nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	req.Header.Set("Accept", "*/*")
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s: cannot reach the engine at %s: %w", what, c.base, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		defer resp.Body.Close()
		return nil, fmt.Errorf("%s: %w", what, c.parseResponseError(resp))
	}
	return resp.Body, nil
}
