package outbox

import (
	"strings"
	"testing"
	"time"
)

// TestLeftoversSummary: Dad's sentence about files not removed yet counts
// them by why they are to go, in plain words, with no path.
func TestLeftoversSummary(t *testing.T) {
	l := func(reason string) Leftover {
		return Leftover{Path: `C:\Users\Dad\AppData\Local\Spark\outbox\files\01JD`, Reason: reason, Since: time.Now(), Attempts: 2, LastError: "Access is denied."}
	}
	tests := []struct {
		name string
		ls   []Leftover
		want string
	}{
		{"None", nil, ""},
		{"OneSent", []Leftover{l(ReasonDelivered)},
			"1 photo already sent could not be removed from this computer yet (a program may have it open). Spark tries again on its own."},
		{"ThreeSent", []Leftover{l(ReasonDelivered), l(ReasonDelivered), l(ReasonDelivered)},
			"3 photos already sent could not be removed from this computer yet (a program may have them open). Spark tries again on its own."},
		{"SentAndDiscarded", []Leftover{l(ReasonDelivered), l(ReasonDiscarded), l(ReasonStaging)},
			"1 photo already sent, 1 photo you discarded and 1 copy left from an import that was interrupted could not be removed from this computer yet (a program may have them open). Spark tries again on its own."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := LeftoversSummary(tt.ls)
			if got != tt.want {
				t.Errorf("LeftoversSummary = %q\nwant %q", got, tt.want)
			}
			if strings.Contains(got, `\`) || strings.Contains(got, "/") {
				t.Errorf("the sentence shows a path: %q", got)
			}
		})
	}
	d := LeftoverDetail(l(ReasonDelivered))
	for _, want := range []string{`C:\Users\Dad\AppData\Local\Spark\outbox\files\01JD`, "already sent", "2 tries", "Access is denied."} {
		if !strings.Contains(d, want) {
			t.Errorf("LeftoverDetail = %q, want it to say %q", d, want)
		}
	}
}
