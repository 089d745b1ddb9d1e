package app

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/sparkfamily/spark/api"
)

// SearchPart is a piece of a matching text; Hit marks matching words.
type SearchPart struct {
	Text string `json:"text"`
	Hit  bool   `json:"hit"`
}

// SearchMatch is a caption, reading or kept phrase that matches.
type SearchMatch struct {
	Source string       `json:"source"` // caption, reading or phrase
	Key    string       `json:"key"`
	Parts  []SearchPart `json:"parts"`
}

// SearchResult is a moment that matches, with its matching texts.
type SearchResult struct {
	Moment  Moment        `json:"moment"`
	Matches []SearchMatch `json:"matches"`
}

// SearchView answers Moments.Search.
type SearchView struct {
	Query   string         `json:"query"`
	Results []SearchResult `json:"results"`
	Phrases []SearchMatch  `json:"phrases"`
	// Millis is how long the engine took to answer, as the app saw it.
	Millis float64 `json:"millis"`
}

// searchLimit is how many moments a search shows.
const searchLimit = 100

// Search finds the moments whose caption, readings or kept phrases hold
// every word of q, through the engine's full-text search (GET /v1/search,
// an extension answered from its SQLite mirror: on this computer it needs
// no network).
func (m *Moments) Search(q string) (SearchView, error) {
	out := SearchView{Query: q, Results: []SearchResult{}, Phrases: []SearchMatch{}}
	if strings.TrimSpace(q) == "" {
		return out, nil
	}
	cl, err := m.a.client()
	if err != nil {
		return out, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	u := cl.BaseURL() + "/v1/search?" + url.Values{"q": {q}, "limit": {strconv.Itoa(searchLimit)}}.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return out, err
	}
	req.Header.Set("Authorization", "Bearer "+m.a.token())
	req.Header.Set("Accept", "application/json")
	start := time.Now()
	resp, err := m.a.hc.Do(req)
	if err != nil {
		return out, fmt.Errorf("search: cannot reach the engine at %s: %w", cl.BaseURL(), err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		var body api.ErrorBody
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		if json.Unmarshal(b, &body) != nil || body.Error == nil {
			return out, &api.Error{Status: resp.StatusCode, Code: fmt.Sprintf("http_%d", resp.StatusCode), Message: "the engine could not search"}
		}
		body.Error.Status = resp.StatusCode
		if resp.StatusCode == http.StatusNotFound {
			return out, &UIError{Code: CodeFailed, Message: "This engine is too old to search. Ask whoever looks after it to update Spark."}
		}
		return out, body.Error
	}
	var res struct {
		Results []struct {
			Moment  api.Moment    `json:"moment"`
			Matches []SearchMatch `json:"matches"`
		} `json:"results"`
		Phrases []SearchMatch `json:"phrases"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&res); err != nil {
		return out, fmt.Errorf("search: read the engine's answer: %w", err)
	}
	out.Millis = float64(time.Since(start).Microseconds()) / 1000
	for i := range res.Results {
		out.Results = append(out.Results, SearchResult{Moment: momentView(&res.Results[i].Moment), Matches: res.Results[i].Matches})
	}
	out.Phrases = append(out.Phrases, res.Phrases...)
	return out, nil
}
