package mirror

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/sparkfamily/spark/engine/api"
)

// Sources of a search hit: what the matching text is.
const (
	SourceCaption = "caption"
	SourceReading = "reading"
	SourcePhrase  = "phrase"
	SourceWords   = "words" // [extension] the words found in a photo
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
	words := queryWords(q)
	for i, w := range words {
		words[i] = `"` + w + `"*`
	}
	return strings.Join(words, " ")
}

// maxQueryWords is how many words of a query count; the rest are left out.
const maxQueryWords = 16

// queryWords returns the words of q that count, as Query reads them, in
// the order typed. Each word is a prefix that every hit must hold, and
// each costs a pass over the index's entries for it, so a word that adds
// nothing is left out (issue 25, item 6):
//   - a word typed twice, case and accents aside ("Door door"), counts once;
//   - a word that begins another word of the query ("gar garden") is left
//     out, since every text holding the longer one holds it too;
//   - of the one-letter words, the costliest prefixes (each matches nearly
//     every text), only the first counts.
func queryWords(q string) []string {
	words := strings.FieldsFunc(q, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) })
	folded := make([]string, len(words))
	for i, w := range words {
		folded[i] = foldWord(w)
	}
	out := words[:0]
	oneLetter := false
	for i, w := range words {
		f := folded[i]
		if utf8.RuneCountInString(f) < 2 {
			if oneLetter {
				continue
			}
			oneLetter = true
		}
		if beginsAnother(f, folded, i) {
			continue
		}
		out = append(out, w)
		if len(out) == maxQueryWords {
			break
		}
	}
	return out
}

// beginsAnother reports whether f, the folded word at i, begins another
// word of folded, or equals one typed before it (the first of equal words
// is kept).
func beginsAnother(f string, folded []string, i int) bool {
	for j, g := range folded {
		if j == i {
			continue
		}
		if f == g && j < i || f != g && strings.HasPrefix(g, f) {
			return true
		}
	}
	return false
}

// rankedAtMost is how many matching texts Search still orders by
// relevance. Past it the words are so common that ranking them costs more
// than it tells (bm25 is computed for every match, about 2 µs each, before
// the first can be answered): the newest texts come first instead, read
// straight from the index in rowid order, which stops at limit.
const rankedAtMost = 2000

// snippetWords is how many words of a long text a hit shows, around its
// first match.
const snippetWords = 40

// DefaultSearchBudget is how long one search may take, its wait for a
// slot included, before it is given up with api.CodeSearchTooBroad: the
// words typed match so much that answering would hold the engine's reads.
const DefaultSearchBudget = 10 * time.Second

// maxSearches is how many searches run at once: half of the read
// connections, so that reading a moment or a page never waits behind
// searches.
const maxSearches = 2

// errSearchTooBroad is a search given up at its budget, in words for the
// person who typed it.
func errSearchTooBroad() error {
	return api.Errorf(api.CodeSearchTooBroad, "That search matches too much to answer quickly. Add another word, or a few more letters of one.")
}

// searching waits for a search slot and bounds the search by the budget;
// done gives the slot back and turns an error of the search into
// errSearchTooBroad once the budget, not the caller, ended it.
func (m *DB) searching(ctx context.Context) (context.Context, func(error) error, error) {
	sctx, cancel := context.WithTimeout(ctx, m.searchBudget)
	select {
	case m.searches <- struct{}{}:
	case <-sctx.Done():
		cancel()
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		return nil, nil, errSearchTooBroad()
	}
	done := func(err error) error {
		<-m.searches
		over := sctx.Err() != nil && ctx.Err() == nil
		cancel()
		if err != nil && over {
			return errSearchTooBroad()
		}
		return err
	}
	return sctx, done, nil
}

// Search returns up to limit texts matching q (as Query reads it), from
// live moments and kept phrases: best first (FTS5's bm25 rank) when at
// most rankedAtMost texts match, newest first when more do.
func (m *DB) Search(ctx context.Context, q string, limit int) ([]SearchHit, error) {
	ctx, done, err := m.searching(ctx)
	if err != nil {
		return nil, err
	}
	hits := []SearchHit{}
	err = done(m.searchEach(ctx, q, limit, func(h SearchHit) bool {
		hits = append(hits, h)
		return true
	}))
	if err != nil {
		return nil, err
	}
	return hits, nil
}

// searchEach is Search calling fn with each hit in turn, until fn returns
// false. It finds the hits first (ids only, with no query left open while
// fn runs: fn may read the mirror), then makes each hit's snippet as it
// comes to it (snippetOf), so that the hits after the ones fn took cost
// nothing.
func (m *DB) searchEach(ctx context.Context, q string, limit int, fn func(SearchHit) bool) error {
	hits, err := m.searchHits(ctx, q, limit)
	if err != nil {
		return err
	}
	words := foldedWords(q)
	for _, h := range hits {
		snippet, ok, err := m.snippetOf(ctx, h.doc, words)
		if err != nil {
			return err
		}
		if !ok {
			continue // changed since: no longer there
		}
		h.Snippet = snippet
		if !fn(h.SearchHit) {
			return nil
		}
	}
	return nil
}

// docHit is a hit with the id of its text in search_docs.
type docHit struct {
	SearchHit
	doc int64
}

// searchHits finds up to limit texts matching q, best first, without
// their snippets.
func (m *DB) searchHits(ctx context.Context, q string, limit int) ([]docHit, error) {
	match := Query(q)
	if match == "" {
		return nil, nil
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
	rows, err := m.query(ctx, `SELECT search.rowid, d.moment_id, d.source, substr(d.key, 3)
		FROM search JOIN search_docs d ON d.id = search.rowid
		LEFT JOIN moments mo ON mo.id = d.moment_id
		WHERE search MATCH ?1 AND (d.moment_id = '' OR (mo.id IS NOT NULL AND mo.deleted_at IS NULL))
		ORDER BY `+order+` LIMIT ?2`, match, limit)
	if err != nil {
		return nil, m.wrap("search", err)
	}
	defer rows.Close()
	var hits []docHit
	for rows.Next() {
		var h docHit
		if err := rows.Scan(&h.doc, &h.MomentID, &h.Source, &h.Key); err != nil {
			return nil, m.wrap("search", err)
		}
		hits = append(hits, h)
	}
	if err := rows.Err(); err != nil {
		return nil, m.wrap("search", err)
	}
	return hits, nil
}

// snippetOf makes the snippet of the text doc: the whole text when it has
// at most snippetWords words, else snippetWords words from a little before
// the first word that matches, "…" where cut, with every matching word
// between MarkStart and MarkEnd. A word matches when, case and accents
// folded as the index folds them, it starts with one of words. It is made
// here, in one pass over the text, rather than by FTS5's snippet, which
// took seconds (and megabytes) for a long text holding thousands of
// matches. ok is false when the text is gone.
func (m *DB) snippetOf(ctx context.Context, doc int64, words []string) (snippet string, ok bool, err error) {
	var text string
	err = m.queryRow(ctx, `SELECT text FROM search_docs WHERE id = ?`, doc).Scan(&text)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, m.wrap("search", err)
	}
	return makeSnippet(text, words, snippetWords), true, nil
}

// foldedWords returns the words of q, folded (foldWord).
func foldedWords(q string) []string {
	words := queryWords(q)
	for i, w := range words {
		words[i] = foldWord(w)
	}
	return words
}

// foldWord folds case and accents, as the index's tokenizer does
// (unicode61, remove_diacritics 2): "Café" is "cafe".
func foldWord(w string) string {
	var b strings.Builder
	for _, r := range norm.NFD.String(w) {
		if unicode.Is(unicode.Mn, r) {
			continue
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// isWordRune reports whether r is part of a word, as the index's tokenizer
// reads words.
func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.Mn, r)
}

// makeSnippet is snippetOf's cut of text; see there. It reads the text
// twice (to count its words and find the first match, then to write the
// words kept) and keeps nothing of it but the snippet.
func makeSnippet(text string, words []string, n int) string {
	total, first := 0, -1
	eachWord(text, func(start, end int) bool {
		if first < 0 && matchesWord(text[start:end], words) {
			first = total
		}
		total++
		return true
	})
	s, e := 0, total
	if total > n {
		s = max(0, first-n/4)
		e = min(total, s+n)
		s = e - n
	}
	var b strings.Builder
	if s > 0 {
		b.WriteString("…")
	}
	at, k := 0, 0
	eachWord(text, func(start, end int) bool {
		switch {
		case k < s:
			at = end
		case k == s && s > 0:
			at = start
			fallthrough
		default:
			if matchesWord(text[start:end], words) {
				b.WriteString(text[at:start])
				b.WriteString(MarkStart)
				b.WriteString(text[start:end])
				b.WriteString(MarkEnd)
				at = end
			}
		}
		k++
		if k == e && e < total {
			b.WriteString(text[at:end])
			at = end
			return false
		}
		return true
	})
	if e < total {
		b.WriteString("…")
	} else {
		b.WriteString(text[at:])
	}
	return b.String()
}

// Match searches one text held outside the mirror (a change not sent to
// the engine yet) as Search reads q: the snippet's parts (SnippetParts)
// when every word of q begins a word of text, else ok false.
func Match(q, text string) (parts []api.SearchPart, ok bool) {
	words := foldedWords(q)
	if len(words) == 0 {
		return nil, false
	}
	for _, w := range words {
		found := false
		eachWord(text, func(start, end int) bool {
			found = matchesWord(text[start:end], []string{w})
			return !found
		})
		if !found {
			return nil, false
		}
	}
	return SnippetParts(makeSnippet(text, words, snippetWords)), true
}

// eachWord calls fn with the start and end of each word of text, as the
// index's tokenizer reads words, until fn returns false.
func eachWord(text string, fn func(start, end int) bool) {
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		if !isWordRune(r) {
			i += size
			continue
		}
		j := i + size
		for j < len(text) {
			r, size := utf8.DecodeRuneInString(text[j:])
			if !isWordRune(r) {
				break
			}
			j += size
		}
		if !fn(i, j) {
			return
		}
		i = j
	}
}

// matchesWord reports whether the word w, folded, starts with one of
// words (folded).
func matchesWord(w string, words []string) bool {
	ascii := true
	for i := 0; i < len(w); i++ {
		if w[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		// Most words: folded by lower-casing, without allocating.
		for _, q := range words {
			if len(q) <= len(w) && strings.EqualFold(w[:len(q)], q) {
				return true
			}
		}
		return false
	}
	f := foldWord(w)
	for _, q := range words {
		if strings.HasPrefix(f, q) {
			return true
		}
	}
	return false
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
	return m.SearchMomentsWithin(ctx, q, limit, 0, nil, moment)
}

// SearchMomentsWithin is SearchMoments within a byte budget (0: none):
// it stops before a moment found that would take the moments past budget
// bytes of JSON (as size reckons a moment's), and sets More; the texts after it (less relevant) are not
// read, so the phrases and matches among them are left out too. It always
// holds the first moment found, so that an answer is never empty for want
// of room.
func (m *DB) SearchMomentsWithin(ctx context.Context, q string, limit, budget int, size func(*api.Moment) int,
	moment func(context.Context, string) (*api.Moment, error)) (*api.SearchResults, error) {
	ctx, done, err := m.searching(ctx)
	if err != nil {
		return nil, err
	}
	out, err := m.searchMoments(ctx, q, limit, budget, size, moment)
	if err = done(err); err != nil {
		return nil, err
	}
	return out, nil
}

// searchMoments is SearchMomentsWithin once it has its slot.
func (m *DB) searchMoments(ctx context.Context, q string, limit, budget int, size func(*api.Moment) int,
	moment func(context.Context, string) (*api.Moment, error)) (*api.SearchResults, error) {
	out := &api.SearchResults{Results: []api.SearchResult{}, Phrases: []api.SearchMatch{}}
	taken := 0 // JSON bytes of the moments taken
	// A moment can match by several texts: ask for more texts than moments.
	hits, err := m.searchHits(ctx, q, limit*(MaxMatchesPerMoment+1))
	if err != nil {
		return nil, err
	}
	words := foldedWords(q)
	at := map[string]int{} // moment id -> index in out.Results
	for _, h := range hits {
		i, ok := at[h.MomentID]
		switch {
		case h.MomentID == "":
		case !ok:
			if len(out.Results) == limit {
				continue
			}
			if budget > 0 && taken >= budget {
				// The rest is less relevant than what the answer holds.
				out.More = true
				return out, nil
			}
			mo, err := moment(ctx, h.MomentID)
			if err != nil {
				return nil, err
			}
			if mo == nil {
				continue
			}
			if budget > 0 {
				n := size(mo)
				if len(out.Results) > 0 && taken+n > budget {
					// It would take the answer past its budget.
					out.More = true
					return out, nil
				}
				taken += n
			}
			i = len(out.Results)
			at[h.MomentID] = i
			out.Results = append(out.Results, api.SearchResult{Moment: *mo, Matches: []api.SearchMatch{}})
		case len(out.Results[i].Matches) == MaxMatchesPerMoment:
			continue
		}
		// Only the snippets shown are made.
		snippet, ok, err := m.snippetOf(ctx, h.doc, words)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		match := api.SearchMatch{Source: h.Source, Key: h.Key, Parts: SnippetParts(snippet)}
		if h.MomentID == "" {
			out.Phrases = append(out.Phrases, match)
		} else {
			out.Results[i].Matches = append(out.Results[i].Matches, match)
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
