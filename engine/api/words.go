package api

import "unicode/utf8"

// MaxWordsBytes bounds the words of one photo [extension]: far more than a
// page of print holds.
const MaxWordsBytes = 64 << 10

// maxLangLen bounds a language tag.
const maxLangLen = 35

// CheckWords refuses, with 400 bad_words, words that are not UTF-8 or are
// longer than MaxWordsBytes, and a language that is not a tag of letters,
// digits and '-' (at most 35, starting with a letter).
func CheckWords(w Words) error {
	if !utf8.ValidString(w.Text) {
		return Errorf(CodeBadWords, "the words are not UTF-8 text")
	}
	if len(w.Text) > MaxWordsBytes {
		return Errorf(CodeBadWords, "the words are %d bytes; at most %d are kept for one photo", len(w.Text), MaxWordsBytes)
	}
	if !isLang(w.Lang) {
		return Errorf(CodeBadWords, "the language %.40q is not a language tag such as \"en\" or \"eng\"", w.Lang)
	}
	return nil
}

func isLang(s string) bool {
	if s == "" || len(s) > maxLangLen || !('a' <= s[0] && s[0] <= 'z' || 'A' <= s[0] && s[0] <= 'Z') {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}
