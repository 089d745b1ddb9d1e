package api

import (
	"strings"
	"testing"
)

func TestCheckCaption(t *testing.T) {
	for _, tc := range []struct {
		name    string
		caption string
		ok      bool
	}{
		{"Empty", "", true},
		{"Short", "the gas bill", true},
		{"AtTheCap", strings.Repeat("a", MaxCaptionBytes), true},
		// The cap counts bytes: 21846 three-byte runes are one byte over.
		{"MultibyteOverTheCap", strings.Repeat("€", MaxCaptionBytes/3+1), false},
		{"OneOver", strings.Repeat("a", MaxCaptionBytes+1), false},
		{"Huge", strings.Repeat("a", 900<<10), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckCaption(tc.caption)
			if tc.ok {
				if err != nil {
					t.Fatalf("CheckCaption: %v", err)
				}
				return
			}
			if ErrorCode(err) != CodeCaptionTooLong || HTTPStatus(CodeCaptionTooLong) != 400 {
				t.Fatalf("CheckCaption = %v, want caption_too_long (400)", err)
			}
			if !strings.Contains(err.Error(), "64 KiB") {
				t.Errorf("the message %q does not name the cap", err)
			}
		})
	}
}
