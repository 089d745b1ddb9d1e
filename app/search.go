package app

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/sparkfamily/spark/engine/api"
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
// no network), or, with a family engine, the replica's own index of the
// same text (no network either).
func (m *Moments) Search(q string) (SearchView, error) {
	out := SearchView{Query: q, Results: []SearchResult{}, Phrases: []SearchMatch{}}
	if strings.TrimSpace(q) == "" {
		return out, nil
	}
	st := m.a.state()
	src, err := st.corpus()
	if err != nil {
		return out, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	start := time.Now()
	res, err := src.Search(ctx, q, searchLimit)
	if err != nil {
		if e, ok := api.AsError(err); ok && e.Status == http.StatusNotFound {
			return out, &UIError{Code: CodeEngineTooOld}
		}
		return out, err
	}
	out.Millis = float64(time.Since(start).Microseconds()) / 1000
	for i := range res.Results {
		r := &res.Results[i]
		out.Results = append(out.Results, SearchResult{Moment: momentView(&r.Moment, st.viewer()), Matches: matchesView(r.Matches)})
	}
	out.Phrases = append(out.Phrases, matchesView(res.Phrases)...)
	return out, nil
}

// matchesView is the window's copy of the engine's matches.
func matchesView(ms []api.SearchMatch) []SearchMatch {
	out := make([]SearchMatch, len(ms))
	for i, m := range ms {
		parts := make([]SearchPart, len(m.Parts))
		for j, p := range m.Parts {
			parts[j] = SearchPart{Text: p.Text, Hit: p.Hit}
		}
		out[i] = SearchMatch{Source: m.Source, Key: m.Key, Parts: parts}
	}
	return out
}
