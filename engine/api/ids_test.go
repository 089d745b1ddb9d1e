package api

import (
	"strings"
	"testing"
)

// codeOf returns the contract code of err, or "" for nil.
func codeOf(tb testing.TB, err error) string {
	tb.Helper()
	if err == nil {
		return ""
	}
	e, ok := AsError(err)
	if !ok {
		tb.Fatalf("error %v is not an *api.Error", err)
	}
	if e.Message == "" {
		tb.Errorf("error with code %s has no message", e.Code)
	}
	return e.Code
}

func TestParseULID(t *testing.T) {
	tests := []struct {
		name, in, want, code string
	}{
		{"Canonical", "01ARZ3NDEKTSV4RRFFQ69G5FAV", "01ARZ3NDEKTSV4RRFFQ69G5FAV", ""},
		{"LowerCaseUpperCased", "01arz3ndektsv4rrffq69g5fav", "01ARZ3NDEKTSV4RRFFQ69G5FAV", ""},
		{"MixedCase", "01ArZ3NdEKTSV4RRFFQ69G5FAV", "01ARZ3NDEKTSV4RRFFQ69G5FAV", ""},
		{"Max", "7ZZZZZZZZZZZZZZZZZZZZZZZZZ", "7ZZZZZZZZZZZZZZZZZZZZZZZZZ", ""},
		{"Zero", "00000000000000000000000000", "00000000000000000000000000", ""},
		{"TwentySeven", "01ARZ3NDEKTSV4RRFFQ69G5FAVX", "", CodeBadID},
		{"TwentyFive", "01ARZ3NDEKTSV4RRFFQ69G5FA", "", CodeBadID},
		{"Empty", "", "", CodeBadID},
		{"LetterI", "01ARZ3NDEKTSV4RRFFQ69G5FAI", "", CodeBadID},
		{"LetterL", "01ARZ3NDEKTSV4RRFFQ69G5FAL", "", CodeBadID},
		{"LetterO", "01ARZ3NDEKTSV4RRFFQ69G5FAO", "", CodeBadID},
		{"LetterU", "01ARZ3NDEKTSV4RRFFQ69G5FAU", "", CodeBadID},
		{"Dash", "01ARZ3NDEK-SV4RRFFQ69G5FAV", "", CodeBadID},
		{"PathTraversal", "../../../../../../etc/pass", "", CodeBadID},
		{"NonASCII", "01ARZ3NDEKTSV4RRFFQ69G5Fé", "", CodeBadID},
		{"Overflow", "8ZZZZZZZZZZZZZZZZZZZZZZZZZ", "", CodeBadID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseULID(tt.in)
			if code := codeOf(t, err); code != tt.code || got != tt.want {
				t.Errorf("ParseULID(%q) = %q, %v; want %q, code %q", tt.in, got, err, tt.want, tt.code)
			}
		})
	}
}

func TestCheckRequestIDs(t *testing.T) {
	tests := []struct {
		name  string
		check func(string) error
		in    string
		ok    bool
	}{
		{"RequestOne", CheckRequestID, "a", true},
		{"RequestAllChars", CheckRequestID, "AZaz09._:-", true},
		{"Request80", CheckRequestID, strings.Repeat("r", 80), true},
		{"Request81", CheckRequestID, strings.Repeat("r", 81), false},
		{"RequestEmpty", CheckRequestID, "", false},
		{"RequestSpace", CheckRequestID, "a b", false},
		{"RequestSlash", CheckRequestID, "a/b", false},
		{"RequestNonASCII", CheckRequestID, "café", false},
		{"RequestNUL", CheckRequestID, "a\x00", false},
		{"Recall70", CheckRecallID, strings.Repeat("r", 70), true},
		{"Recall71", CheckRecallID, strings.Repeat("r", 71), false},
		{"RecallBadChar", CheckRecallID, "recall#1", false},
		{"RecallEmpty", CheckRecallID, "", false},
		{"Job64", CheckJobID, strings.Repeat("j", 64), true},
		{"Job65", CheckJobID, strings.Repeat("j", 65), false},
		{"JobBadChar", CheckJobID, "job?1", false},
		{"JobEmpty", CheckJobID, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.check(tt.in)
			want := CodeBadID
			if tt.ok {
				want = ""
			}
			if code := codeOf(t, err); code != want {
				t.Errorf("check(%q) = %v, want code %q", tt.in, err, want)
			}
		})
	}
	// A recall's turn id and a job's turn ids fit in a request id.
	if err := CheckRequestID(strings.Repeat("r", MaxRecallIDLen) + ":turn"); err != nil {
		t.Errorf("the longest recall turn id is refused: %v", err)
	}
	if err := CheckRequestID(strings.Repeat("j", MaxJobIDLen) + ":1234567"); err != nil {
		t.Errorf("a long job turn id is refused: %v", err)
	}
}

func TestPhraseID(t *testing.T) {
	tests := []struct {
		name, in, want, code string
	}{
		{"Plain", "pay by friday", "keep:pay by friday", ""},
		{"LowerCased", "Pay By FRIDAY", "keep:pay by friday", ""},
		{"Trimmed", "  pay by friday \n", "keep:pay by friday", ""},
		{"SpacesCollapsed", "pay \t by\n\n friday", "keep:pay by friday", ""},
		{"UnicodeSpaces", "pay\u00a0by\u3000friday", "keep:pay by friday", ""},
		{"NFC", "cafe\u0301", "keep:caf\u00e9", ""},
		{"NFCUpper", "CAFE\u0301", "keep:caf\u00e9", ""},
		{"AlreadyNFC", "caf\u00e9", "keep:caf\u00e9", ""},
		{"Empty", "", "", CodeBadText},
		{"OnlySpace", " \t\n ", "", CodeBadText},
		{"Exactly80", strings.Repeat("a", 75), "keep:" + strings.Repeat("a", 75), ""},
		{"81", strings.Repeat("a", 76), "", CodeBadID},
		{"80AfterTrim", "  " + strings.Repeat("a", 75) + "  ", "keep:" + strings.Repeat("a", 75), ""},
		// The ceiling counts characters (runes), not bytes: a Greek, an
		// accented or a Chinese phrase fits as an English one of as many
		// letters does.
		{"AccentedExactly80", strings.Repeat("é", 75), "keep:" + strings.Repeat("é", 75), ""}, // 155 bytes
		{"Accented81", strings.Repeat("é", 76), "", CodeBadID},
		{"GreekExactly80", strings.Repeat("λ", 75), "keep:" + strings.Repeat("λ", 75), ""},
		{"Greek81", strings.Repeat("λ", 76), "", CodeBadID},
		{"GreekSentence", "Πλήρωσε τον λογαριασμό του ρεύματος μέχρι την Παρασκευή στο ταχυδρομείο!", "keep:πλήρωσε τον λογαριασμό του ρεύματος μέχρι την παρασκευή στο ταχυδρομείο!", ""},
		{"ChineseExactly80", strings.Repeat("银", 75), "keep:" + strings.Repeat("银", 75), ""}, // 230 bytes
		{"Chinese81", strings.Repeat("银", 76), "", CodeBadID},
		{"EmojiExactly80", strings.Repeat("🌱", 75), "keep:" + strings.Repeat("🌱", 75), ""},          // 305 bytes
		{"NFCCountsComposed", strings.Repeat("e\u0301", 75), "keep:" + strings.Repeat("é", 75), ""}, // 150 runes before NFC, 75 after
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := PhraseID(tt.in)
			if code := codeOf(t, err); code != tt.code || got != tt.want {
				t.Errorf("PhraseID(%q) = %q, %v; want %q, code %q", tt.in, got, err, tt.want, tt.code)
			}
			if tt.code == "" {
				if err := CheckPhraseID(got); err != nil {
					t.Errorf("CheckPhraseID(%q) = %v", got, err)
				}
			}
		})
	}
}

func TestCheckPhraseID(t *testing.T) {
	tests := []struct {
		in string
		ok bool
	}{
		{"keep:pay by friday", true},
		{"keep:" + strings.Repeat("a", 75), true},
		{"keep:" + strings.Repeat("a", 76), false},
		{"keep:" + strings.Repeat("λ", 75), true},
		{"keep:" + strings.Repeat("λ", 76), false},
		{"keep:" + strings.Repeat("银", 75), true},
		{"keep:" + strings.Repeat("银", 76), false},
		{"pay by friday", false},
		{"keep:Pay", false},
		{"keep: pay", false},
		{"keep:pay  by", false},
		{"keep:cafe\u0301", false},
		{"keep:", false},
	}
	for _, tt := range tests {
		err := CheckPhraseID(tt.in)
		want := CodeBadID
		if tt.ok {
			want = ""
		}
		if code := codeOf(t, err); code != want {
			t.Errorf("CheckPhraseID(%q) = %v, want code %q", tt.in, err, want)
		}
	}
}

func TestValidSHA256(t *testing.T) {
	sum := "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
	for s, want := range map[string]bool{
		sum:                     true,
		strings.ToUpper(sum):    false,
		sum[:63]:                false,
		sum + "0":               false,
		"../" + sum[3:]:         false,
		sum[:62] + "/x":         false,
		"":                      false,
		strings.Repeat("g", 64): false,
		strings.Repeat("0", 64): true,
	} {
		if got := ValidSHA256(s); got != want {
			t.Errorf("ValidSHA256(%q) = %v, want %v", s, got, want)
		}
	}
}
