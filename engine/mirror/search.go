package mirror

import (
	"context"
	"strings"
	"unicode"
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

// Search returns up to limit texts matching q (as Query reads it), best
// first (FTS5's bm25 rank), from live moments and kept phrases.
func (m *DB) Search(ctx context.Context, q string, limit int) ([]SearchHit, error) {
	match := Query(q)
	if match == "" {
		return []SearchHit{}, nil
	}
	rows, err := m.query(ctx, `SELECT d.moment_id, d.source, substr(d.key, 3),
			snippet(search, 0, char(2), char(3), '…', 40)
		FROM search JOIN search_docs d ON d.id = search.rowid
		LEFT JOIN moments mo ON mo.id = d.moment_id
		WHERE search MATCH ?1 AND (d.moment_id = '' OR (mo.id IS NOT NULL AND mo.deleted_at IS NULL))
		ORDER BY rank LIMIT ?2`, match, limit)
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
