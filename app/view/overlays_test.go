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

// TestOverlays_WordsKeepTheFirst: a words write waiting or just sent
// shows on a moment only while the moment has none read yet; words the
// engine kept, none ("" in a language) as much as some, stay, as the
// engine keeps them.
func TestOverlays_WordsKeepTheFirst(t *testing.T) {
	w := outbox.NewWords("01J0000000000000000000MOMT", "Severn Water", "eng")
	for _, tc := range []struct {
		name         string
		words, lang  string
		wantW, wantL string
	}{
		{"none read yet", "", "", "Severn Water", "eng"},
		{"read, with no words", "", "eng", "", "eng"},
		{"read, with words", "Severn Waler", "eng", "Severn Waler", "eng"},
	} {
		m := Moment{ID: w.MomentID, Words: tc.words, WordsLang: tc.lang}
		overlays[outbox.WriteWords].moment(&m, &w)
		if m.Words != tc.wantW || m.WordsLang != tc.wantL {
			t.Errorf("%s: the moment shows %q (%q); want %q (%q)", tc.name, m.Words, m.WordsLang, tc.wantW, tc.wantL)
		}
	}
}
