package app

import (
	"testing"

	"github.com/oklog/ulid/v2"
	"github.com/sparkfamily/spark/app/view"
	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/enginetest"
	"github.com/sparkfamily/spark/engine/pippa/pippatest"
)

// TestSettings_StatusCounts: Status counts what waits and what is parked
// by what it is (photos, notes, other changes), so the window can name
// it; Waiting and Parked stay the totals.
func TestSettings_StatusCounts(t *testing.T) {
	t.Run("Waiting", func(t *testing.T) {
		remote := enginetest.Start(t)
		remote.Close() // a family engine that is down
		a, _ := startApp(t, t.TempDir(), nil)
		if _, err := a.Settings.UseRemote(remote.URL, remote.Token); err != nil {
			t.Fatal(err)
		}
		st, err := a.Settings.Status()
		if err != nil || st.Waiting != 0 || st.WaitingItems != (Tally{}) || st.ParkedItems != (Tally{}) {
			t.Fatalf("Status() before anything = %+v, %v; want nothing waiting", st, err)
		}
		// Two notes, a caption and a kept phrase, two photos.
		note := ulid.Make().String()
		if _, err := a.Moments.AddNote(note, "call the pharmacy"); err != nil {
			t.Fatal(err)
		}
		if _, err := a.Moments.AddNote(ulid.Make().String(), "buy stamps"); err != nil {
			t.Fatal(err)
		}
		if _, err := a.Moments.SetCaption(note, "call about the prescription", captionShown(a, note)); err != nil {
			t.Fatal(err)
		}
		if _, err := a.Phrases.Keep("pharmacy", note); err != nil {
			t.Fatal(err)
		}
		res, err := a.Capture.Files("b", []string{writePhoto(t, t.TempDir(), 3), writePhoto(t, t.TempDir(), 4)})
		if err != nil || res[0].Error != nil || res[1].Error != nil {
			t.Fatalf("Capture.Files() = %+v, %v", res, err)
		}
		st, err = a.Settings.Status()
		if err != nil {
			t.Fatal(err)
		}
		if want := (Tally{Photos: 2, Notes: 2, Changes: 2}); st.WaitingItems != want || st.Waiting != 6 || st.Parked != 0 || st.ParkedItems != (Tally{}) {
			t.Errorf("Status() = waiting %d %+v, parked %d %+v; want 6 %+v, none parked", st.Waiting, st.WaitingItems, st.Parked, st.ParkedItems, want)
		}
	})
	t.Run("Parked", func(t *testing.T) {
		remote := enginetest.Start(t, enginetest.WithMaxMediaSize(200))
		a, _ := startApp(t, t.TempDir(), nil)
		if _, err := a.Settings.UseRemote(remote.URL, remote.Token); err != nil {
			t.Fatal(err)
		}
		// A caption for a moment the engine does not have is refused: the
		// call says so, and the write stays parked in the Outbox.
		if _, err := a.Moments.SetCaption(ulid.Make().String(), "never there", ""); err == nil {
			t.Fatal("SetCaption of an unknown moment: no error, want the engine's refusal")
		}
		res, err := a.Capture.Files("b", []string{writePhoto(t, t.TempDir(), 5)})
		if err != nil || res[0].Error != nil {
			t.Fatalf("Capture.Files() = %+v, %v", res, err)
		}
		var st Status
		waitFor(t, "the photo and the change to park", func() bool {
			st, err = a.Settings.Status()
			return err == nil && st.Parked == 2
		})
		if want := (Tally{Photos: 1, Changes: 1}); st.ParkedItems != want || st.Waiting != 0 || st.WaitingItems != (Tally{}) {
			t.Errorf("Status() = waiting %d %+v, parked %d %+v; want none waiting, %+v parked", st.Waiting, st.WaitingItems, st.Parked, st.ParkedItems, want)
		}
	})
}

// TestSettings_StatusPippa: Status says whether the engine in use has a
// Pippa, from its health (issue 36): the window then says "Pippa isn't set
// up" rather than promise a reading. A photo added before Pippa is set up
// waits, queued, and is read once she is, without anything sent again.
func TestSettings_StatusPippa(t *testing.T) {
	t.Run("Local", func(t *testing.T) {
		a, _ := startApp(t, t.TempDir(), nil)
		st, err := a.Settings.Status()
		if err != nil || !st.Reachable || st.Pippa != PippaNoSeat {
			t.Fatalf("Status() with no Pippa = %+v, %v; want reachable, pippa %q", st, err, PippaNoSeat)
		}
		res, err := a.Capture.Files("b", []string{writePhoto(t, t.TempDir(), 2)})
		if err != nil || res[0].Error != nil {
			t.Fatalf("Capture.Files() = %+v, %v", res, err)
		}
		waitFor(t, "delivery", delivered(a))
		var m view.Moment
		waitFor(t, "the reading queued", func() bool {
			m, err = a.Moments.Get(res[0].MomentID)
			return err == nil && len(m.Readings) == 1 && m.Readings[0].Status == api.TurnQueued
		})
		p := pippatest.New(t)
		if _, err := a.Settings.SetPippa(Pippa{URL: p.URL(), Model: "test-model"}); err != nil {
			t.Fatal(err)
		}
		if st, err := a.Settings.Status(); err != nil || st.Pippa != PippaSeated {
			t.Fatalf("Status() once Pippa is set up = %+v, %v; want pippa %q", st, err, PippaSeated)
		}
		waitFor(t, "the reading once Pippa is set up", func() bool {
			m, err = a.Moments.Get(res[0].MomentID)
			return err == nil && len(m.Readings) == 1 && m.Readings[0].Status == api.TurnFinished
		})
	})
	t.Run("Remote", func(t *testing.T) {
		for _, seated := range []bool{false, true} {
			var opts []enginetest.Option
			want := PippaSeated
			if !seated {
				opts, want = append(opts, enginetest.WithoutSeat()), PippaNoSeat
			}
			remote := enginetest.Start(t, opts...)
			a, _ := startApp(t, t.TempDir(), nil)
			if _, err := a.Settings.UseRemote(remote.URL, remote.Token); err != nil {
				t.Fatal(err)
			}
			if st, err := a.Settings.Status(); err != nil || st.Engine != EngineRemote || st.Pippa != want {
				t.Errorf("Status() on a family engine (seat: %v) = %+v, %v; want remote, pippa %q", seated, st, err, want)
			}
		}
	})
	t.Run("Away", func(t *testing.T) {
		remote := enginetest.Start(t, enginetest.WithoutSeat())
		remote.Close()
		a, _ := startApp(t, t.TempDir(), nil)
		if _, err := a.Settings.UseRemote(remote.URL, remote.Token); err != nil {
			t.Fatal(err)
		}
		// An engine that does not answer tells nothing of its Pippa.
		if st, err := a.Settings.Status(); err != nil || st.Reachable || st.Pippa != "" {
			t.Errorf("Status() of an engine away = %+v, %v; want unreachable, pippa unknown", st, err)
		}
	})
}
