package api

// The answer of GET /v1/search [extension]: see docs/API.md.

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
	Moment  Moment        `json:"moment"`
	Matches []SearchMatch `json:"matches"`
}

// SearchResults answers a search: the moments, best match first, and the
// kept phrases that match but belong to no moment.
type SearchResults struct {
	Results []SearchResult `json:"results"`
	Phrases []SearchMatch  `json:"phrases"`
	// More says that more moments matched than the answer holds: it
	// stopped at the engine's page byte budget (about 1 MiB) before the
	// limit. Those left out are the least relevant.
	More bool `json:"more,omitempty"`
}
