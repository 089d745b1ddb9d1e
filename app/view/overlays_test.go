package view

import (
	"testing"

	"github.com/sparkfamily/spark/outbox"
)

// TestOverlays_EveryKind: every kind of write the outbox knows has a row in
// the window's table (overlays), and the window's table has no kind the
// outbox does not know. A kind without one showed nothing in the window
// until it was sent.
func TestOverlays_EveryKind(t *testing.T) {
	known := map[outbox.Kind]bool{}
	for _, k := range outbox.WriteKinds() {
		known[k] = true
		if _, ok := overlays[k]; !ok {
			t.Errorf("the outbox's kind %q has no row in overlays: the window would show nothing of it until it is sent", k)
		}
	}
	for k, s := range overlays {
		if !known[k] {
			t.Errorf("overlays has a row for %q, which the outbox does not know", k)
		}
		if s.makes && s.hides {
			t.Errorf("the kind %q both makes and hides a moment", k)
		}
	}
}
