package mirror

import (
	"context"
	"strings"
	"unicode"

	"github.com/sparkfamily/spark/api"
)

// Sources of a search hit: what the matching text is.
const (
	SourceCaption = "caption"
	SourceReading = "reading"
	SourcePhrase  = "phrase"
)

// Snippet markers: Search's snippets hold the matching words between
// MarkStart and MarkEnd.
const (
	MarkStart = "\x02"
	MarkEnd   = "\x03"
)

// SearchHit is one text that matches a search.
type SearchHit struct {
	MomentID string // "" for a phrase kept without a moment
	Source   string // SourceCaption, SourceReading or SourcePhrase
	// Key is what the text belongs to: the moment, turn or phrase id.
	Key string
	// Snippet is the text around the matches (the whole text when short),
	// the matching words marked with MarkStart and MarkEnd; "…" stands for
	// what was cut.
	Snippet string
}

// Query turns what a person typed into an FTS5 query: every word must
// match, each as a prefix ("gard" finds "garden"), in any order. Words are
// runs of letters and digits, so nothing typed is read as FTS5 syntax. ""
// when there is no word.
func Query(q string) string {
	words := strings.FieldsFunc(q, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) })
	if len(words) > 16 {
		words = words[:16]
	}
	for i, w := range words {
		words[i] = `"` + w + `"*`
	}
	return strings.Join(words, " ")
}

// rankedAtMost is how many matching texts Search still orders by
// relevance. Past it the words are so common that ranking them costs more
// than it tells (bm25 is computed for every match, about 2 µs each, before
// the first can be answered): the newest texts come first instead, read
// straight from the index in rowid order, which stops at limit.
const rankedAtMost = 2000

// Search returns up to limit texts matching q (as Query reads it), from
// live moments and kept phrases: best first (FTS5's bm25 rank) when at
// most rankedAtMost texts match, newest first when more do.
func (m *DB) Search(ctx context.Context, q string, limit int) ([]SearchHit, error) {
	match := Query(q)
	if match == "" {
		return []SearchHit{}, nil
	}
	var n int
	if err := m.queryRow(ctx, `SELECT count(*) FROM (SELECT 1 FROM search WHERE search MATCH ?1 LIMIT ?2)`,
		match, rankedAtMost+1).Scan(&n); err != nil {
		return nil, m.wrap("search", err)
	}
	order := "rank"
	if n > rankedAtMost {
		order = "search.rowid DESC"
	}
	rows, err := m.query(ctx, `SELECT d.moment_id, d.source, substr(d.key, 3),
			snippet(search, 0, char(2), char(3), '…', 40)
		FROM search JOIN search_docs d ON d.id = search.rowid
		LEFT JOIN moments mo ON mo.id = d.moment_id
		WHERE search MATCH ?1 AND (d.moment_id = '' OR (mo.id IS NOT NULL AND mo.deleted_at IS NULL))
		ORDER BY `+order+` LIMIT ?2`, match, limit)
	if err != nil {
		return nil, m.wrap("search", err)
	}
	defer rows.Close()
	hits := []SearchHit{}
	for rows.Next() {
		var h SearchHit
		if err := rows.Scan(&h.MomentID, &h.Source, &h.Key, &h.Snippet); err != nil {
			return nil, m.wrap("search", err)
		}
		hits = append(hits, h)
	}
	if err := rows.Err(); err != nil {
		return nil, m.wrap("search", err)
	}
	return hits, nil
}

// MaxMatchesPerMoment bounds the texts shown under one moment in
// SearchMoments.
const MaxMatchesPerMoment = 3

// SearchMoments is the answer of GET /v1/search from this mirror, the same
// for the engine and for a replica of it: Search's texts grouped under
// their live moments, best first, up to limit moments with at most
// MaxMatchesPerMoment texts each, and the phrases kept without a moment
// apart. moment reads a moment as the caller serves it; (nil, nil) means
// it is gone and is left out.
func (m *DB) SearchMoments(ctx context.Context, q string, limit int,
	moment func(context.Context, string) (*api.Moment, error)) (*api.SearchResults, error) {
	out := &api.SearchResults{Results: []api.SearchResult{}, Phrases: []api.SearchMatch{}}
	// A moment can match by several texts: ask for more texts than moments.
	hits, err := m.Search(ctx, q, limit*(MaxMatchesPerMoment+1))
	if err != nil {
		return nil, err
	}
	at := map[string]int{} // moment id -> index in out.Results
	for _, h := range hits {
		match := api.SearchMatch{Source: h.Source, Key: h.Key, Parts: SnippetParts(h.Snippet)}
		if h.MomentID == "" {
			out.Phrases = append(out.Phrases, match)
			continue
		}
		i, ok := at[h.MomentID]
		if !ok {
			if len(out.Results) == limit {
				continue
			}
			mo, err := moment(ctx, h.MomentID)
			if err != nil {
				return nil, err
			}
			if mo == nil {
				continue
			}
			i = len(out.Results)
			at[h.MomentID] = i
			out.Results = append(out.Results, api.SearchResult{Moment: *mo})
		}
		if r := &out.Results[i]; len(r.Matches) < MaxMatchesPerMoment {
			r.Matches = append(r.Matches, match)
		}
	}
	return out, nil
}

// SnippetParts splits a snippet at its marks (MarkStart, MarkEnd).
func SnippetParts(snippet string) []api.SearchPart {
	var out []api.SearchPart
	for snippet != "" {
		before, rest, found := strings.Cut(snippet, MarkStart)
		if before != "" {
			out = append(out, api.SearchPart{Text: before})
		}
		if !found {
			break
		}
		hit, after, _ := strings.Cut(rest, MarkEnd)
		if hit != "" {
			out = append(out, api.SearchPart{Text: hit, Hit: true})
		}
		snippet = after
	}
	return out
}
