package api

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Id limits from the contract's table of ids.
const (
	ULIDLen         = 26
	MaxRequestIDLen = 80
	MaxRecallIDLen  = 70 // so "<recall id>:turn" fits in 80
	MaxJobIDLen     = 64 // so "<job id>:<index>" fits in 80
	MaxPhraseIDLen  = 80 // characters (runes), not bytes: Greek or Chinese fits as English does
	PhraseIDPrefix  = "keep:"
)

// crockford is the ULID alphabet (Crockford base32, upper case).
const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// ParseULID checks that s is a ULID (26 characters of Crockford base32; lower
// case accepted) and returns its canonical upper-case form. The first
// character must be 0-7, since a ULID is 128 bits.
func ParseULID(s string) (string, error) {
	if len(s) != ULIDLen {
		return "", badID("a ULID has 26 characters, got %d", len(s))
	}
	up := strings.ToUpper(s)
	for i := 0; i < len(up); i++ {
		if strings.IndexByte(crockford, up[i]) < 0 {
			return "", badID("%q is not a ULID: %q is not a Crockford base32 character", s, up[i])
		}
	}
	if up[0] > '7' {
		return "", badID("%q is not a ULID: it overflows 128 bits", s)
	}
	return up, nil
}

// CheckRequestID checks a client request id: 1 to 80 characters of
// A-Z a-z 0-9 . _ : -
func CheckRequestID(s string) error { return checkToken("client request id", s, MaxRequestIDLen) }

// CheckRecallID checks a recall id: a request id of at most 70 characters.
func CheckRecallID(s string) error { return checkToken("recall id", s, MaxRecallIDLen) }

// CheckJobID checks a job id: a request id of at most 64 characters.
func CheckJobID(s string) error { return checkToken("job id", s, MaxJobIDLen) }

func checkToken(what, s string, max int) error {
	if s == "" {
		return badID("the %s is empty", what)
	}
	if len(s) > max {
		return badID("the %s is %d characters long; at most %d are allowed", what, len(s), max)
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		ok := c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' ||
			c == '.' || c == '_' || c == ':' || c == '-'
		if !ok {
			return badID("the %s %q has %q at position %d; only A-Z a-z 0-9 . _ : - are allowed", what, s, c, i)
		}
	}
	return nil
}

// NormalizePhrase returns the normalized form of a kept phrase: Unicode NFC,
// lower-cased, white space collapsed to one space, trimmed.
func NormalizePhrase(text string) string {
	s := strings.ToLower(norm.NFC.String(text))
	s = strings.Join(strings.FieldsFunc(s, unicode.IsSpace), " ")
	// Lower-casing can denormalize a few characters; normalize once more.
	return norm.NFC.String(s)
}

// PhraseID derives a phrase id ("keep:" + the normalized phrase) from text.
// It fails with a bad_text error when the text is empty once normalized and
// a bad_id error when the id would be longer than 80 characters (runes, so a
// phrase in Greek or Chinese fits as an English one of as many letters).
func PhraseID(text string) (string, error) {
	n := NormalizePhrase(text)
	if n == "" {
		return "", Errorf(CodeBadText, "the phrase is empty; select some words of a reading to keep")
	}
	id := PhraseIDPrefix + n
	if n := utf8.RuneCountInString(id); n > MaxPhraseIDLen {
		return "", badID("the phrase is too long to keep: %d characters, at most %d; keep a shorter part of it", n-len(PhraseIDPrefix), MaxPhraseIDLen-len(PhraseIDPrefix))
	}
	return id, nil
}

// CheckPhraseID checks an id given in a path: "keep:" + an already
// normalized phrase, at most 80 characters (runes) in all.
func CheckPhraseID(id string) error {
	if !strings.HasPrefix(id, PhraseIDPrefix) {
		return badID("a phrase id starts with %q", PhraseIDPrefix)
	}
	if len(id) == len(PhraseIDPrefix) {
		return badID("the phrase id %q has no phrase after %q", id, PhraseIDPrefix)
	}
	if n := utf8.RuneCountInString(id); n > MaxPhraseIDLen {
		return badID("a phrase id is at most %d characters, got %d", MaxPhraseIDLen, n)
	}
	if PhraseIDPrefix+NormalizePhrase(id[len(PhraseIDPrefix):]) != id {
		return badID("%q is not a normalized phrase id (NFC, lower case, single spaces, trimmed)", id)
	}
	return nil
}

func badID(format string, args ...any) *Error {
	return Errorf(CodeBadID, format, args...)
}

// ValidSHA256 reports whether s is a SHA-256 as the contract writes one:
// 64 lower-case hex characters. It is the one check of a media hash, which
// is all a blob's or a cached copy's file name may be, so a hash from the
// network never names any other path.
func ValidSHA256(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
