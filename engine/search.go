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

// maxMatchesPerMoment bounds the texts shown under one moment.
const maxMatchesPerMoment = 3

// Search finds the live moments whose caption, readings or kept phrases
// hold every word of q (each word as a prefix, case and accents aside), up
// to limit moments (0 is api.DefaultPageLimit). A q without a word finds
// nothing.
func (e *Engine) Search(ctx context.Context, q string, limit int) (*api.SearchResults, error) {
	if limit == 0 {
		limit = api.DefaultPageLimit
	}
	if err := checkLimit(limit, api.MaxPageLimit); err != nil {
		return nil, err
	}
	e.awaitFold(ctx)
	out := &api.SearchResults{Results: []api.SearchResult{}, Phrases: []api.SearchMatch{}}
	// A moment can match by several texts: ask for more texts than moments.
	hits, err := e.mirror.Search(ctx, q, limit*(maxMatchesPerMoment+1))
	if err != nil {
		return nil, err
	}
	at := map[string]int{} // moment id -> index in out.Results
	for _, h := range hits {
		m := api.SearchMatch{Source: h.Source, Key: h.Key, Parts: parts(h.Snippet)}
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
			out.Results = append(out.Results, api.SearchResult{Moment: *mo})
		}
		if r := &out.Results[i]; len(r.Matches) < maxMatchesPerMoment {
			r.Matches = append(r.Matches, m)
		}
	}
	return out, nil
}

// parts splits a snippet at its marks.
func parts(snippet string) []api.SearchPart {
	var out []api.SearchPart
	for snippet != "" {
		before, rest, found := strings.Cut(snippet, mirror.MarkStart)
		if before != "" {
			out = append(out, api.SearchPart{Text: before})
		}
		if !found {
			break
		}
		hit, after, _ := strings.Cut(rest, mirror.MarkEnd)
		if hit != "" {
			out = append(out, api.SearchPart{Text: hit, Hit: true})
		}
		snippet = after
	}
	return out
}
