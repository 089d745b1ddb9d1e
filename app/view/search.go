package view

import "github.com/sparkfamily/spark/engine/api"

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

// MatchesView is the window's copy of the engine's matches.
func MatchesView(ms []api.SearchMatch) []SearchMatch {
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
