package api

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Seeds for these targets are in testdata/fuzz/<FuzzName>.

// FuzzParseULID checks that an accepted ULID is the input upper-cased, 26
// Crockford characters, and that its canonical form parses to itself.
func FuzzParseULID(f *testing.F) {
	f.Add("01ARZ3NDEKTSV4RRFFQ69G5FAV")
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseULID(s)
		if err != nil {
			if e, ok := AsError(err); !ok || e.Code != CodeBadID {
				t.Fatalf("ParseULID(%q) error %v is not a bad_id *Error", s, err)
			}
			return
		}
		if len(got) != ULIDLen || got != strings.ToUpper(s) {
			t.Fatalf("ParseULID(%q) = %q, want the input upper-cased", s, got)
		}
		for i := 0; i < len(got); i++ {
			if !strings.ContainsRune(crockford, rune(got[i])) {
				t.Fatalf("ParseULID(%q) = %q has %q, not Crockford base32", s, got, got[i])
			}
		}
		again, err := ParseULID(got)
		if err != nil || again != got {
			t.Fatalf("the canonical %q parses to %q, %v", got, again, err)
		}
	})
}

// FuzzCheckRequestID checks that the request, recall and job id checks
// accept exactly 1 to 80 (70, 64) bytes of A-Z a-z 0-9 . _ : -
func FuzzCheckRequestID(f *testing.F) {
	f.Add("req-01.a_b:c")
	f.Fuzz(func(t *testing.T, s string) {
		valid := len(s) >= 1 && len(s) <= MaxRequestIDLen
		for i := 0; i < len(s); i++ {
			c := s[i]
			if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || strings.IndexByte("._:-", c) >= 0) {
				valid = false
			}
		}
		checks := []struct {
			name  string
			check func(string) error
			max   int
		}{
			{"CheckRequestID", CheckRequestID, MaxRequestIDLen},
			{"CheckRecallID", CheckRecallID, MaxRecallIDLen},
			{"CheckJobID", CheckJobID, MaxJobIDLen},
		}
		for _, c := range checks {
			err := c.check(s)
			want := valid && len(s) <= c.max
			if (err == nil) != want {
				t.Fatalf("%s(%q) = %v, want ok=%v", c.name, s, err, want)
			}
			if err != nil {
				if e, ok := AsError(err); !ok || e.Code != CodeBadID || e.Message == "" {
					t.Fatalf("%s(%q) error %v is not a bad_id *Error with a message", c.name, s, err)
				}
			}
		}
	})
}

// FuzzPhraseID checks that a phrase id is at most 80 characters (runes), "keep:" and a
// normalized phrase (valid UTF-8, NFC, lower case, single spaces, trimmed),
// that deriving it again from its phrase gives it back, and that
// CheckPhraseID accepts it.
func FuzzPhraseID(f *testing.F) {
	f.Add("Pay By Friday")
	f.Fuzz(func(t *testing.T, text string) {
		id, err := PhraseID(text)
		if err != nil {
			e, ok := AsError(err)
			if !ok || (e.Code != CodeBadID && e.Code != CodeBadText) {
				t.Fatalf("PhraseID(%q) error %v is not a bad_id or bad_text *Error", text, err)
			}
			return
		}
		if utf8.RuneCountInString(id) > MaxPhraseIDLen || !strings.HasPrefix(id, PhraseIDPrefix) {
			t.Fatalf("PhraseID(%q) = %q: over %d characters or without the prefix", text, id, MaxPhraseIDLen)
		}
		p := id[len(PhraseIDPrefix):]
		switch {
		case p == "":
			t.Fatalf("PhraseID(%q) = %q has an empty phrase", text, id)
		case !utf8.ValidString(p):
			t.Fatalf("PhraseID(%q) = %q is not valid UTF-8", text, id)
		case !norm.NFC.IsNormalString(p):
			t.Fatalf("PhraseID(%q) = %q is not NFC", text, id)
		case strings.TrimSpace(p) != p || strings.Contains(p, "  "):
			t.Fatalf("PhraseID(%q) = %q has extra white space", text, id)
		case strings.ContainsFunc(p, func(r rune) bool { return unicode.IsSpace(r) && r != ' ' }):
			t.Fatalf("PhraseID(%q) = %q has white space other than single spaces", text, id)
		}
		again, err := PhraseID(p)
		if err != nil || again != id {
			t.Fatalf("PhraseID of the phrase of %q = %q, %v; want it back", id, again, err)
		}
		if err := CheckPhraseID(id); err != nil {
			t.Fatalf("CheckPhraseID(%q) = %v for an id PhraseID made", id, err)
		}
	})
}
