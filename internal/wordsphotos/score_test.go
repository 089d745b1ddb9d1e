package wordsphotos

import (
	"math"
	"slices"
	"testing"
)

func TestNormalize(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"", ""},
		{" \n\t ", ""},
		{"Severn Water\n\nCustomer Services", "Severn Water Customer Services"},
		{"  two   spaces\r\nand a tab\there ", "two spaces and a tab here"},
		{"no\u00a0break\u2003em space", "no break em space"},
		{"‘quoted’ “twice” – and — minus −1", `'quoted' "twice" - and - minus -1`},
		{"ﬁne ﬂat oﬀer", "fine flat offer"},
		{"Case, Punctuation; KEPT.", "Case, Punctuation; KEPT."},
		{"£41.20 RD/7731/Q", "£41.20 RD/7731/Q"},
	} {
		if got := Normalize(tt.in); got != tt.want {
			t.Errorf("Normalize(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestLevenshtein(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"abc", "", 3},
		{"", "abc", 3},
		{"kitten", "sitting", 3},
		{"flaw", "lawn", 2},
		{"RD/7731/Q", "RD/7731/Q", 0},
		{"RD/7731/Q", "RD/773I/0", 2},
		{"£41.20", "E41.20", 1}, // runes, not bytes: £ is two bytes
		{"Hartley", "Hartiey", 1},
		{"ab", "ba", 2},
	} {
		if got := Levenshtein(tt.a, tt.b); got != tt.want {
			t.Errorf("Levenshtein(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := Levenshtein(tt.b, tt.a); got != tt.want {
			t.Errorf("Levenshtein(%q, %q) = %d, want %d (symmetric)", tt.b, tt.a, got, tt.want)
		}
	}
}

func TestCompare(t *testing.T) {
	const letter = "Your reference RD/7731/Q\nAccount number 4417 0923 8815\n\nDear Mr Hartley,\n"
	for _, tt := range []struct {
		name        string
		truth, got  string
		edits, char int
		found, word int
		cer         float64
	}{
		{"read exactly", letter, letter, 0, 71, 11, 11, 0},
		{"line breaks and spaces differ only", letter, "Your reference  RD/7731/Q Account number\n4417 0923 8815 Dear Mr Hartley,", 0, 71, 11, 11, 0},
		{"one letter wrong", letter, "Your reference RD/7731/0\nAccount number 4417 0923 8815\nDear Mr Hartley,", 1, 71, 10, 11, 1.0 / 71},
		{"a word missing", letter, "Your reference RD/7731/Q Account number 4417 0923 8815 Dear Hartley,", 3, 71, 10, 11, 3.0 / 71},
		{"nothing read", letter, "", 71, 71, 0, 11, 1},
		{"case and end punctuation do not count for words", "Severn Water.", "SEVERN water", 7, 13, 2, 2, 7.0 / 13},
		{"a word twice must be read twice", "Council Tax Council Tax", "Council Tax", 12, 23, 2, 4, 12.0 / 23},
		{"more read than there is", "EXIT", "EXIT EXIT EXIT", 10, 4, 1, 1, 2.5},
		{"typographic quotes are ASCII", "don't", "don’t", 0, 5, 1, 1, 0},
		{"a dash alone is no word", "MON - SAT", "MON SAT", 2, 9, 2, 2, 2.0 / 9},
		{"no true text, nothing read", "", " \n", 0, 0, 0, 0, 0},
		{"no true text, something read", "", "Ee", 2, 0, 0, 0, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := Compare(tt.truth, tt.got)
			if s.Edits != tt.edits || s.Chars != tt.char || s.Found != tt.found || s.Words != tt.word {
				t.Errorf("Compare = %+v, want edits %d chars %d found %d words %d", s, tt.edits, tt.char, tt.found, tt.word)
			}
			if math.Abs(s.CER()-tt.cer) > 1e-9 {
				t.Errorf("CER = %v, want %v", s.CER(), tt.cer)
			}
		})
	}
}

func TestScoreSum(t *testing.T) {
	// A sum weighs each photo by its length: 1 error in 10 and 0 in 90
	// is 1%, not the mean of 10% and 0%.
	s := Score{Edits: 1, Chars: 10, Found: 1, Words: 2}.Add(Score{Edits: 0, Chars: 90, Found: 18, Words: 18})
	if s.CER() != 0.01 || s.FoundShare() != 0.95 {
		t.Errorf("sum %+v: CER %v, found %v; want 0.01, 0.95", s, s.CER(), s.FoundShare())
	}
	if (Score{}).FoundShare() != 1 {
		t.Error("no true words: all of them found")
	}
}

func TestWords(t *testing.T) {
	got := Words("Your reference: RD/7731/Q.\n(Amount £41.20) - “done”")
	want := []string{"your", "reference", "rd/7731/q", "amount", "41.20", "done"}
	if !slices.Equal(got, want) {
		t.Errorf("Words = %q, want %q", got, want)
	}
}
