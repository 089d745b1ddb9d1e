package main

import (
	"strings"
	"testing"

	"github.com/sparkfamily/spark/outbox"
)

// TestParkedWords: an entry parked for its own file is worded here, from
// its code (the outbox sends the code and the facts): it names the photo,
// this computer, the facts, and says to retry or discard; a refusal keeps
// the engine's message.
func TestParkedWords(t *testing.T) {
	for _, code := range []string{outbox.CodeMissingFile, outbox.CodeUnreadableFile, outbox.CodeChangedFile} {
		got := parkedWords(code, "letter.jpg", "original of letter.jpg: /x/files/1/original: 5 bytes")
		for _, want := range []string{"letter.jpg", "on this computer", "/x/files/1/original", "retry", "discard"} {
			if !strings.Contains(got, want) {
				t.Errorf("parkedWords(%s) = %q; does not say %q", code, got, want)
			}
		}
	}
	if got := parkedWords("media_too_large", "a.jpg", "the file is larger than the limit"); got != "the file is larger than the limit" {
		t.Errorf("a refusal = %q; want the engine's message", got)
	}
}

// TestLeftoversWords: Dad's sentence about files not removed yet counts
// them by why they are to go, in plain words, with no path (moved here
// from outbox's TestLeftoversSummary with its sentences: the outbox sends
// the numbers now).
func TestLeftoversWords(t *testing.T) {
	for _, tt := range []struct {
		name string
		c    outbox.LeftoverCounts
		want string
	}{
		{"None", outbox.LeftoverCounts{}, ""},
		{"OneSent", outbox.LeftoverCounts{Sent: 1},
			"1 photo already sent could not be removed from this computer yet (a program may have it open). Spark tries again on its own."},
		{"ThreeSent", outbox.LeftoverCounts{Sent: 3},
			"3 photos already sent could not be removed from this computer yet (a program may have them open). Spark tries again on its own."},
		{"SentAndDiscarded", outbox.LeftoverCounts{Sent: 1, Discarded: 1, Interrupted: 1},
			"1 photo already sent, 1 photo you discarded and 1 copy left from an import that was interrupted could not be removed from this computer yet (a program may have them open). Spark tries again on its own."},
	} {
		if got := leftoversWords(tt.c); got != tt.want {
			t.Errorf("%s: leftoversWords = %q\nwant %q", tt.name, got, tt.want)
		}
	}
}
