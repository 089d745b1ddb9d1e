package app

import (
	"testing"

	"github.com/sparkfamily/spark/app/view"
	"github.com/sparkfamily/spark/outbox"
)

// TestWaitsFor: a write not sent yet waits for the engine chosen while
// it is away, and is being sent while it answers; one the engine refused
// waits for Dad, in the Outbox; a write delivered (the replica has not got
// it yet) waits for nothing.
func TestWaitsFor(t *testing.T) {
	if got := (&state{prefs: prefs{Engine: EngineRemote}}).waitsFor(); got != WaitsFamily {
		t.Errorf("family engine: waitsFor() = %q; want %q", got, WaitsFamily)
	}
	if got := (&state{prefs: prefs{Engine: EngineLocal}}).waitsFor(); got != WaitsLocal {
		t.Errorf("this computer's engine: waitsFor() = %q; want %q", got, WaitsLocal)
	}
	remote := &state{prefs: prefs{Engine: EngineRemote}, sync: &syncState{}}
	away := &state{prefs: prefs{Engine: EngineRemote}, sync: &syncState{offline: CodeOffline}}
	local := &state{prefs: prefs{Engine: EngineLocal}}
	for _, tc := range []struct {
		name  string
		st    *state
		state outbox.State
		// awaits: the write waits because the engine did not answer.
		awaits bool
		want   string
	}{
		// The family engine answers: what waits is being sent now, not
		// "when the family engine is back" (issue 36).
		{"Sending", remote, outbox.Pending, false, WaitsSending},
		{"AwaitsTheEngine", remote, outbox.Pending, true, WaitsFamily},
		{"EngineAway", away, outbox.Pending, false, WaitsFamily},
		{"Local", local, outbox.Pending, true, WaitsLocal},
		{"Parked", remote, outbox.Parked, false, WaitsParked},
		{"Done", remote, outbox.Done, false, ""},
	} {
		u := view.Unsent{WaitsOf: tc.st.waitsOf, Writes: []outbox.Write{{ID: "w1", Kind: outbox.WriteCaption, MomentID: "m1", Text: "x", State: tc.state, AwaitsEngine: tc.awaits}}}
		m := view.Moment{ID: "m1"}
		u.Apply(&m)
		if m.WaitsFor != tc.want {
			t.Errorf("%s: a caption %s: the moment waits for %q; want %q", tc.name, tc.state, m.WaitsFor, tc.want)
		}
		if tc.state == outbox.Pending {
			if v := writeView(&u.Writes[0], tc.st.waitsOf(&u.Writes[0])); v.WaitsFor != tc.want {
				t.Errorf("%s: the Outbox's caption waits for %q; want %q", tc.name, v.WaitsFor, tc.want)
			}
		}
	}
}
