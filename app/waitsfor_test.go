package app

import (
	"testing"

	"github.com/sparkfamily/spark/outbox"
)

// TestWaitsFor: a write not sent yet waits for the engine chosen, and
// one the engine refused for Dad, in the Outbox; a write delivered (the
// replica has not got it yet) waits for nothing.
func TestWaitsFor(t *testing.T) {
	if got := (&state{prefs: prefs{Engine: EngineRemote}}).waitsFor(); got != WaitsFamily {
		t.Errorf("family engine: waitsFor() = %q; want %q", got, WaitsFamily)
	}
	if got := (&state{prefs: prefs{Engine: EngineLocal}}).waitsFor(); got != WaitsLocal {
		t.Errorf("this computer's engine: waitsFor() = %q; want %q", got, WaitsLocal)
	}
	for _, tc := range []struct {
		state outbox.State
		want  string
	}{
		{outbox.Pending, WaitsFamily},
		{outbox.Parked, WaitsParked},
		{outbox.Done, ""},
	} {
		u := unsent{waitsFor: WaitsFamily, writes: []outbox.Write{{ID: "w1", Kind: outbox.WriteCaption, MomentID: "m1", Text: "x", State: tc.state}}}
		m := Moment{ID: "m1"}
		u.apply(&m)
		if m.WaitsFor != tc.want {
			t.Errorf("a caption %s: the moment waits for %q; want %q", tc.state, m.WaitsFor, tc.want)
		}
	}
}
