package engine

import (
	"context"
	"strings"

	"github.com/sparkfamily/spark/api"
	"github.com/sparkfamily/spark/engine/mirror"
)

// Full-text search [extension]: GET /v1/search (engine/server/search.go),
// answered from the mirror's FTS5 index of captions, readings and kept
// phrases (engine/mirror/search.sql), so it needs no network beyond the
// engine itself.

// SearchPart is a piece of a matching text; Hit marks the words that
// match.
type SearchPart struct {
	Text string `json:"text"`
	Hit  bool   `json:"hit,omitempty"`
}

// SearchMatch is one text that matches: a caption, a reading or a kept
// phrase, cut to the part around the matching words.
type SearchMatch struct {
	Source string       `json:"source"` // "caption", "reading" or "phrase"
	Key    string       `json:"key"`    // the moment, turn or phrase id
	Parts  []SearchPart `json:"parts"`
}

// SearchResult is a moment with its matching texts, best first.
type SearchResult struct {
	Moment  api.Moment    `json:"moment"`
	Matches []SearchMatch `json:"matches"`
}

// SearchResults answers a search: the moments, best match first, and the
// kept phrases that match but belong to no moment.
type SearchResults struct {
	Results []SearchResult `json:"results"`
	Phrases []SearchMatch  `json:"phrases"`
}

// maxMatchesPerMoment bounds the texts shown under one moment.
const maxMatchesPerMoment = 3

// Search finds the live moments whose caption, readings or kept phrases
// hold every word of q (each word as a prefix, case and accents aside), up
// to limit moments (0 is api.DefaultPageLimit). A q without a word finds
// nothing.
func (e *Engine) Search(ctx context.Context, q string, limit int) (*SearchResults, error) {
	if limit == 0 {
		limit = api.DefaultPageLimit
	}
	if err := checkLimit(limit, api.MaxPageLimit); err != nil {
		return nil, err
	}
	e.awaitFold(ctx)
	out := &SearchResults{Results: []SearchResult{}, Phrases: []SearchMatch{}}
	// A moment can match by several texts: ask for more texts than moments.
	hits, err := e.mirror.Search(ctx, q, limit*(maxMatchesPerMoment+1))
	if err != nil {
		return nil, err
	}
	at := map[string]int{} // moment id -> index in out.Results
	for _, h := range hits {
		m := SearchMatch{Source: h.Source, Key: h.Key, Parts: parts(h.Snippet)}
		if h.MomentID == "" {
			out.Phrases = append(out.Phrases, m)
			continue
		}
		i, ok := at[h.MomentID]
		if !ok {
			if len(out.Results) == limit {
				continue
			}
			mo, err := e.Moment(ctx, h.MomentID)
			if err != nil {
				if api.ErrorCode(err) == api.CodeNotFound {
					continue
				}
				return nil, err
			}
			i = len(out.Results)
			at[h.MomentID] = i
			out.Results = append(out.Results, SearchResult{Moment: *mo})
		}
		if r := &out.Results[i]; len(r.Matches) < maxMatchesPerMoment {
			r.Matches = append(r.Matches, m)
		}
	}
	return out, nil
}

// parts splits a snippet at its marks.
func parts(snippet string) []SearchPart {
	var out []SearchPart
	for snippet != "" {
		before, rest, found := strings.Cut(snippet, mirror.MarkStart)
		if before != "" {
			out = append(out, SearchPart{Text: before})
		}
		if !found {
			break
		}
		hit, after, _ := strings.Cut(rest, mirror.MarkEnd)
		if hit != "" {
			out = append(out, SearchPart{Text: hit, Hit: true})
		}
		snippet = after
	}
	return out
}
