package outbox

import (
	"strings"
	"testing"
	"time"
)

// TestCountLeftovers: the files not removed yet are counted by why they
// are to go (numbers: the words are the window's and the spark command's);
// each one's detail line names its path, why, its tries and the last error.
func TestCountLeftovers(t *testing.T) {
	l := func(reason string) Leftover {
		return Leftover{Path: `C:\Users\Dad\AppData\Local\Spark\outbox\files\01JD`, Reason: reason, Since: time.Now(), Attempts: 2, LastError: "Access is denied."}
	}
	for _, tt := range []struct {
		name string
		ls   []Leftover
		want LeftoverCounts
	}{
		{"None", nil, LeftoverCounts{}},
		{"ThreeSent", []Leftover{l(ReasonDelivered), l(ReasonDelivered), l(ReasonDelivered)}, LeftoverCounts{Sent: 3}},
		{"SentDiscardedInterrupted", []Leftover{l(ReasonDelivered), l(ReasonDiscarded), l(ReasonStaging), l(ReasonStray)},
			LeftoverCounts{Sent: 1, Discarded: 1, Interrupted: 2}},
	} {
		if got := CountLeftovers(tt.ls); got != tt.want {
			t.Errorf("%s: CountLeftovers = %+v, want %+v", tt.name, got, tt.want)
		}
	}
	d := LeftoverDetail(l(ReasonDelivered))
	for _, want := range []string{`C:\Users\Dad\AppData\Local\Spark\outbox\files\01JD`, "already sent", "2 tries", "Access is denied."} {
		if !strings.Contains(d, want) {
			t.Errorf("LeftoverDetail = %q, want it to say %q", d, want)
		}
	}
}
