package app

import (
	"testing"

	"github.com/sparkfamily/spark/client"
	"github.com/sparkfamily/spark/engine/enginetest"
)

// TestMove_BringAlong: moments captured on this computer's engine are
// brought to the family engine after the switch, by the same push as
// spark-engine push; nothing is left behind. This computer had no Pippa, so
// its readings never finished: the family engine's Pippa reads each once.
func TestMove_BringAlong(t *testing.T) {
	family := enginetest.Start(t)
	a, sh := startApp(t, t.TempDir(), nil)
	if v, err := a.Settings.MoveCheck(); err != nil || v.Available {
		t.Fatalf("MoveCheck on this computer's engine = %+v, %v; want nothing to bring", v, err)
	}
	pics := t.TempDir()
	res, err := a.Capture.Files("b", []string{writePhoto(t, pics, 1), writePhoto(t, pics, 2)})
	if err != nil || res[0].Error != nil || res[1].Error != nil {
		t.Fatalf("Capture.Files() = %+v, %v", res, err)
	}
	waitFor(t, "delivery to this computer's engine", delivered(a))
	if _, err := a.Settings.UseRemote(family.URL, family.Token); err != nil {
		t.Fatalf("UseRemote: %v", err)
	}
	v, err := a.Settings.MoveCheck()
	if err != nil || !v.Available || v.Lacking != 2 {
		t.Fatalf("MoveCheck after the switch = %+v, %v; want 2 moments lacking", v, err)
	}
	if _, err := a.Settings.BringAlong(); err != nil {
		t.Fatalf("BringAlong: %v", err)
	}
	waitFor(t, "the move to finish", func() bool { return !a.move().get().Running })
	if v := a.move().get(); !v.Finished || v.Done != v.Total || v.Total == 0 {
		t.Fatalf("after the move: %+v", v)
	}
	if v, err := a.Settings.MoveCheck(); err != nil || v.Available || v.Lacking != 0 {
		t.Fatalf("MoveCheck after the move = %+v, %v; want none lacking", v, err)
	}
	ms, _, err := client.New(family.URL, family.Token, nil).Moments(t.Context(), 10, "")
	if err != nil || len(ms) != 2 || ms[0].Copy == nil {
		t.Fatalf("family engine's moments %+v, %v", ms, err)
	}
	waitFor(t, "the family engine's readings", func() bool { return family.Pippa.Calls() >= 2 })
	// A second move finds everything there and asks nothing more.
	if _, err := a.Settings.BringAlong(); err != nil {
		t.Fatalf("BringAlong again: %v", err)
	}
	waitFor(t, "the second move to finish", func() bool { return !a.move().get().Running })
	if v := a.move().get(); !v.Finished {
		t.Fatalf("after the second move: %+v", v)
	}
	if n := family.Pippa.Calls(); n != 2 {
		t.Errorf("family Pippa asked %d times; want once for each of the 2 readings never given", n)
	}
	if sh.count(MoveEvent) == 0 {
		t.Errorf("no %q event reached the window", MoveEvent)
	}
}
