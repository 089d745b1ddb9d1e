package wordsphotos

import (
	"strings"
	"unicode"
)

// Normalize is the text both readers' answers and the true text are
// scored in: every run of white space (spaces, tabs, line breaks, any
// Unicode space) becomes one space, with none at either end, and the
// typographic look-alikes a reader of printed text gives for ASCII ones
// are folded to them: the quotes ‘ ’ ‚ ‛ ′ to ', “ ” „ ‟ ″ to ", the
// dashes ‐ ‑ ‒ – — − to -, and the ligatures ﬁ ﬂ ﬀ ﬃ ﬄ to their letters.
// Case, punctuation and everything else are kept as they are.
func Normalize(s string) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) {
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		if f, ok := fold[r]; ok {
			b.WriteString(f)
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

var fold = map[rune]string{
	'‘': "'", '’': "'", '‚': "'", '‛': "'", '′': "'",
	'“': `"`, '”': `"`, '„': `"`, '‟': `"`, '″': `"`,
	'‐': "-", '‑': "-", '‒': "-", '–': "-", '—': "-", '−': "-",
	'ﬁ': "fi", 'ﬂ': "fl", 'ﬀ': "ff", 'ﬃ': "ffi", 'ﬄ': "ffl",
}

// Levenshtein is the number of characters (runes) to insert, delete or
// substitute to make a into b.
func Levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	if len(ra) < len(rb) {
		ra, rb = rb, ra
	}
	row := make([]int, len(rb)+1)
	for j := range row {
		row[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		diag := row[0]
		row[0] = i
		for j := 1; j <= len(rb); j++ {
			up := row[j]
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			row[j] = min(row[j]+1, row[j-1]+1, diag+cost)
			diag = up
		}
	}
	return row[len(rb)]
}

// Score is how a reading compares with the true text.
type Score struct {
	// Edits is the Levenshtein distance between the normalized texts;
	// Chars the length of the normalized true text, in runes.
	Edits, Chars int
	// Found is how many of the true words were found; Words how many
	// there are.
	Found, Words int
}

// CER is the character error rate: Edits / Chars (0 for no true text and
// none read; it may pass 1 when far more is read than is there).
func (s Score) CER() float64 {
	if s.Chars == 0 {
		if s.Edits == 0 {
			return 0
		}
		return 1
	}
	return float64(s.Edits) / float64(s.Chars)
}

// FoundShare is Found / Words (1 for no true words).
func (s Score) FoundShare() float64 {
	if s.Words == 0 {
		return 1
	}
	return float64(s.Found) / float64(s.Words)
}

// Add sums two scores, so that the sum's CER weighs each photo by its
// length.
func (s Score) Add(o Score) Score {
	return Score{s.Edits + o.Edits, s.Chars + o.Chars, s.Found + o.Found, s.Words + o.Words}
}

// Compare scores got, a reader's text, against truth.
//
// The character error rate is over Normalize of each. A word is what
// lies between white space, with the punctuation and symbols at either
// end taken off ("records." is "records", "RD/7731/Q" stays whole, "-"
// is no word), compared without regard to case; each true word is found
// at most as often as it is read, so a word that is there twice must be
// read twice.
func Compare(truth, got string) Score {
	nt, ng := Normalize(truth), Normalize(got)
	s := Score{Edits: Levenshtein(nt, ng), Chars: len([]rune(nt))}
	read := map[string]int{}
	for _, w := range Words(ng) {
		read[w]++
	}
	for _, w := range Words(nt) {
		s.Words++
		if read[w] > 0 {
			read[w]--
			s.Found++
		}
	}
	return s
}

// Words are the words of s as Compare counts them, in lower case.
func Words(s string) []string {
	var ws []string
	for _, f := range strings.Fields(Normalize(s)) {
		w := strings.TrimFunc(f, func(r rune) bool { return unicode.IsPunct(r) || unicode.IsSymbol(r) })
		if w != "" {
			ws = append(ws, strings.ToLower(w))
		}
	}
	return ws
}
