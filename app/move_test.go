package app

import (
	"maps"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/client"
	"github.com/sparkfamily/spark/engine/enginetest"
	"github.com/sparkfamily/spark/engine/pippa/pippatest"
	"github.com/sparkfamily/spark/internal/hostile"
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
	if sh.count(EventMove) == 0 {
		t.Errorf("no %q event reached the window", EventMove)
	}
}

// TestMove_BringHere: the way back. Moments captured while Spark used the
// family engine, read by its Pippa, are brought to this computer's engine
// after the switch back, by the same push: each with its reading as given,
// this computer's Pippa never asked, a second move writing nothing, and
// nothing taken from the family engine.
func TestMove_BringHere(t *testing.T) {
	family := enginetest.Start(t)
	mine := pippatest.New(t)
	a, _ := startApp(t, t.TempDir(), mine)
	if _, err := a.Settings.UseRemote(family.URL, family.Token); err != nil {
		t.Fatalf("UseRemote: %v", err)
	}
	pics := t.TempDir()
	res, err := a.Capture.Files("b", []string{writePhoto(t, pics, 1), writePhoto(t, pics, 2)})
	if err != nil || res[0].Error != nil || res[1].Error != nil {
		t.Fatalf("Capture.Files() = %+v, %v", res, err)
	}
	waitFor(t, "delivery to the family engine", delivered(a))
	fc := client.New(family.URL, family.Token, nil)
	read := func(c *client.Client) map[string]string {
		ms, _, err := c.Moments(t.Context(), 10, "")
		if err != nil {
			t.Fatalf("moments: %v", err)
		}
		got := map[string]string{}
		for _, m := range ms {
			for _, tr := range m.Turns {
				if tr.Status == api.TurnFinished {
					got[m.ID] += tr.Text
				}
			}
			if m.Copy == nil {
				got[m.ID] += " (no copy)"
			}
		}
		return got
	}
	waitFor(t, "the family engine's readings", func() bool { r := read(fc); return len(r) == 2 && r[res[0].MomentID] != "" && r[res[1].MomentID] != "" })
	want := read(fc)

	if _, err := a.Settings.UseLocal(); err != nil {
		t.Fatalf("UseLocal: %v", err)
	}
	v, err := a.Settings.MoveCheck()
	// The window words the offer from Way and Lacking (words.ts moveWords).
	if err != nil || !v.Available || v.Way != MoveHere || v.Lacking != 2 || v.Stop != "" {
		t.Fatalf("MoveCheck after the switch back = %+v, %v; want 2 moments to bring here", v, err)
	}
	if _, err := a.Settings.BringAlong(); err != nil {
		t.Fatalf("BringAlong: %v", err)
	}
	waitFor(t, "the move to finish", func() bool { return !a.move().get().Running })
	if v := a.move().get(); !v.Finished || v.Done != v.Total || v.Total == 0 || v.Stop != "" || v.Problem != nil {
		t.Fatalf("after the move: %+v", v)
	}
	lc, err := a.client()
	if err != nil {
		t.Fatal(err)
	}
	if got := read(lc); !maps.Equal(got, want) {
		t.Fatalf("this computer's engine holds %v; the family engine %v", got, want)
	}
	if n := mine.Calls(); n != 0 {
		t.Errorf("this computer's Pippa asked %d times; the readings were finished already", n)
	}
	if v, err := a.Settings.MoveCheck(); err != nil || v.Available || v.Lacking != 0 || v.Way != MoveHere {
		t.Fatalf("MoveCheck after the move = %+v, %v; want none lacking", v, err)
	}
	h, err := lc.Health(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	// A second move finds everything here and writes nothing.
	if _, err := a.Settings.BringAlong(); err != nil {
		t.Fatalf("BringAlong again: %v", err)
	}
	waitFor(t, "the second move to finish", func() bool { return !a.move().get().Running })
	if v := a.move().get(); !v.Finished {
		t.Fatalf("after the second move: %+v", v)
	}
	if h2, err := lc.Health(t.Context()); err != nil || h2.Seq != h.Seq {
		t.Fatalf("this computer's log went from seq %d to %+v (%v) on a second move", h.Seq, h2, err)
	}
	if got := read(fc); !maps.Equal(got, want) {
		t.Fatalf("the family engine holds %v after the move; before it %v", got, want)
	}
}

// TestMove_BringHereFamilyGone: back on this computer's engine with the
// family engine Spark used before gone, Settings offers nothing and says
// nothing alarming.
func TestMove_BringHereFamilyGone(t *testing.T) {
	family := enginetest.Start(t)
	a, _ := startApp(t, t.TempDir(), nil)
	if _, err := a.Settings.UseRemote(family.URL, family.Token); err != nil {
		t.Fatalf("UseRemote: %v", err)
	}
	if _, err := a.Settings.UseLocal(); err != nil {
		t.Fatalf("UseLocal: %v", err)
	}
	family.Close()
	if v, err := a.Settings.MoveCheck(); err != nil || v.Available || v.Stop != "" || v.Way != MoveHere {
		t.Fatalf("MoveCheck with the family engine gone = %+v, %v; want nothing offered, nothing said", v, err)
	}
}

// Issue 32, item 8: a move to a family engine that takes requests and
// never answers them ends (it hung until Spark was closed), and the
// window says why: Spark can't reach the engine (CodeOffline), with
// push's sentence naming it as the details. Pressing again goes on.
func TestMove_EndsOnStalledFamilyEngine(t *testing.T) {
	old, oldGiveUp := moveStallAfter, moveGiveUpAfter
	moveStallAfter, moveGiveUpAfter = 3*time.Second, 3*time.Second
	t.Cleanup(func() { moveStallAfter, moveGiveUpAfter = old, oldGiveUp })

	family := enginetest.Start(t)
	u, err := url.Parse(family.URL)
	if err != nil {
		t.Fatal(err)
	}
	// The family engine, answering what is read and holding every write
	// without a byte in return.
	var stalled atomic.Bool
	release := make(chan struct{})
	rp := httputil.NewSingleHostReverseProxy(u)
	front := hostile.Serve(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet || !stalled.Load() {
			rp.ServeHTTP(w, r)
			return
		}
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}).URL
	t.Cleanup(func() { close(release) })

	a, _ := startApp(t, t.TempDir(), nil)
	pics := t.TempDir()
	res, err := a.Capture.Files("b", []string{writePhoto(t, pics, 1), writePhoto(t, pics, 2)})
	if err != nil || res[0].Error != nil || res[1].Error != nil {
		t.Fatalf("Capture.Files() = %+v, %v", res, err)
	}
	waitFor(t, "delivery to this computer's engine", delivered(a))
	if _, err := a.Settings.UseRemote(front, family.Token); err != nil {
		t.Fatalf("UseRemote: %v", err)
	}
	if v, err := a.Settings.MoveCheck(); err != nil || v.Lacking != 2 {
		t.Fatalf("MoveCheck after the switch = %+v, %v; want 2 moments lacking", v, err)
	}
	stalled.Store(true)
	start := time.Now()
	if _, err := a.Settings.BringAlong(); err != nil {
		t.Fatalf("BringAlong: %v", err)
	}
	waitFor(t, "the move to end", func() bool { return !a.move().get().Running })
	t.Logf("the move ended after %s", time.Since(start).Round(time.Millisecond))
	v := a.move().get()
	if v.Finished || v.Stop != MoveStopStopped || v.Problem == nil || v.Problem.Code != CodeOffline {
		t.Fatalf("after the move: %+v (problem %+v); want stopped, the engine offline", v, v.Problem)
	}
	if want := "the engine the moments go to (" + front + ") moved no byte for 3s"; !strings.Contains(v.Problem.Detail, want) {
		t.Errorf("the details say %q; want them to say %q", v.Problem.Detail, want)
	}

	stalled.Store(false)
	if _, err := a.Settings.BringAlong(); err != nil {
		t.Fatalf("BringAlong again: %v", err)
	}
	waitFor(t, "the second move to finish", func() bool { return !a.move().get().Running })
	if v := a.move().get(); !v.Finished || v.Problem != nil {
		t.Fatalf("after the second move, the engine well again: %+v", v)
	}
}
