package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"

	"github.com/sparkfamily/spark/engine/api"
)

// Search finds the live moments whose caption, readings or kept phrases
// hold every word of q (GET /v1/search, an extension; see docs/API.md).
// limit 0 means the engine's default. An engine too old to search answers
// 404 not_found.
func (c *Client) Search(ctx context.Context, q string, limit int) (*api.SearchResults, error) {
	v := url.Values{"q": {q}}
	if limit > 0 {
		v.Set("limit", strconv.Itoa(limit))
	}
	var out api.SearchResults
	if _, err := c.call(ctx, http.MethodGet, "/v1/search?"+v.Encode(), "search", nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
