package view

import (
	"testing"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/outbox"
)

// A photo the engine has without its full photo says what becomes of it:
// sent, refused (waiting for Dad), or never coming.
func TestUnsent_FullPhoto(t *testing.T) {
	u := Unsent{Captures: map[string]outbox.State{"sending": outbox.Pending, "parked": outbox.Parked, "done": outbox.Done}}
	orig := &Media{}
	for _, tc := range []struct {
		name string
		m    Moment
		want string
	}{
		{"with its original", Moment{ID: "none", Kind: api.KindPhoto, Original: orig}, ""},
		{"a note", Moment{ID: "none", Kind: api.KindNote}, ""},
		{"still on this computer", Moment{ID: "none", Kind: api.KindPhoto, Pending: true}, ""},
		{"being sent", Moment{ID: "sending", Kind: api.KindPhoto}, FullSending},
		{"sent, not in the copy yet", Moment{ID: "done", Kind: api.KindPhoto}, FullSending},
		{"refused", Moment{ID: "parked", Kind: api.KindPhoto}, FullRefused},
		{"removed from the Outbox", Moment{ID: "none", Kind: api.KindPhoto}, FullNone},
	} {
		if got := u.fullPhoto(&tc.m); got != tc.want {
			t.Errorf("%s: fullPhoto = %q; want %q", tc.name, got, tc.want)
		}
	}
}
