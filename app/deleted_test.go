package app

import (
	"slices"
	"testing"

	"github.com/oklog/ulid/v2"
	"github.com/sparkfamily/spark/app/view"
	"github.com/sparkfamily/spark/engine/client"
	"github.com/sparkfamily/spark/engine/enginetest"
)

// ids lists the ids of a page's moments.
func ids(ms []view.Moment) []string {
	out := []string{}
	for _, m := range ms {
		out = append(out, m.ID)
	}
	return out
}

// TestRecentlyDeleted_Restore (issue 35): a moment deleted waits in
// Recently deleted (Moments.Deleted), with when it was deleted, and
// Restore brings it back to Moments, on this computer's engine.
func TestRecentlyDeleted_Restore(t *testing.T) {
	a, _ := startApp(t, t.TempDir(), nil)
	id := ulid.Make().String()
	if _, err := a.Moments.AddNote(id, "the boiler man comes on Tuesday"); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Moments.Delete(id); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the delete to reach the engine and Recently deleted to list it", func() bool {
		d, err := a.Moments.Deleted("", 50)
		return err == nil && slices.Equal(ids(d.Moments), []string{id}) && d.Moments[0].DeletedAt != ""
	})
	if p, err := a.Moments.Page("", 50); err != nil || slices.Contains(ids(p.Moments), id) {
		t.Fatalf("Moments after the delete = %v, %v; want the note gone", ids(p.Moments), err)
	}
	if _, err := a.Moments.Restore(id); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the note back in Moments and out of Recently deleted", func() bool {
		p, err := a.Moments.Page("", 50)
		d, derr := a.Moments.Deleted("", 50)
		return err == nil && derr == nil && slices.Contains(ids(p.Moments), id) && len(d.Moments) == 0
	})
	if _, err := a.Moments.Restore("not-an-id"); err == nil {
		t.Error("Restore of a bad id succeeded")
	}
}

// TestRecentlyDeleted_Offline: with the family engine away, a delete
// shows in Recently deleted at once, and a restore takes it out of there
// and back into Moments at once: the window shows what Dad did, not what
// the engine has yet.
func TestRecentlyDeleted_Offline(t *testing.T) {
	fastSync(t)
	remote := enginetest.Start(t, enginetest.WithoutSeat())
	a, _ := remoteApp(t, remote)
	id := ulid.Make().String()
	if _, err := a.Moments.AddNote(id, "pay the window cleaner"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the note to reach the family engine", func() bool {
		_, err := client.New(remote.URL, remote.Token, remote.Client()).Moment(t.Context(), id)
		return err == nil
	})
	// A photo, deleted while the engine was there: in this computer's
	// copy, it is in Recently deleted.
	res, err := a.Capture.Files("b", writePhotos(t, 1, 1))
	if err != nil || len(res) != 1 || res[0].Error != nil {
		t.Fatalf("capture: %v %+v", err, res)
	}
	earlier := res[0].MomentID
	waitFor(t, "the photo to reach the family engine", func() bool { return nothingWaits(a) })
	if _, err := a.Moments.Delete(earlier); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "this computer's copy to hold the delete", func() bool {
		d, err := a.Moments.Deleted("", 50)
		return err == nil && slices.Equal(ids(d.Moments), []string{earlier}) && nothingWaits(a)
	})
	caughtUp(t, a, engineHead(t, remote))
	remote.Close()

	if _, err := a.Moments.Delete(id); err != nil {
		t.Fatal(err)
	}
	d, err := a.Moments.Deleted("", 50)
	if err != nil || !slices.Equal(ids(d.Moments), []string{earlier, id}) || d.Moments[0].DeletedAt == "" || d.Moments[1].DeletedAt == "" {
		t.Fatalf("Recently deleted offline after the delete = %+v, %v; want both notes, newest first, each with when it was deleted", d.Moments, err)
	}
	for _, r := range []string{id, earlier} {
		if _, err := a.Moments.Restore(r); err != nil {
			t.Fatal(err)
		}
	}
	d, err = a.Moments.Deleted("", 50)
	if err != nil || len(d.Moments) != 0 {
		t.Fatalf("Recently deleted offline after the restores = %v, %v; want none", ids(d.Moments), err)
	}
	p, err := a.Moments.Page("", 50)
	if err != nil || !slices.Contains(ids(p.Moments), id) || !slices.Contains(ids(p.Moments), earlier) {
		t.Fatalf("Moments offline after the restores = %v, %v; want both notes", ids(p.Moments), err)
	}
}

// nothingWaits reports whether the Outbox holds no write.
func nothingWaits(a *App) bool {
	st, err := a.Outbox.Status()
	return err == nil && len(st.Writes) == 0
}
