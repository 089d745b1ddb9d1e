package app

import (
	"context"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/sparkfamily/spark/app/view"
	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/client"
	"github.com/sparkfamily/spark/engine/enginetest"
)

// TestMoments_Alternatives (issue 35): a caption typed in the window from
// the one it showed, while another computer changed that one, keeps both:
// the window shows the other as an alternative, "Use this one" (a caption
// from the one shown) makes it the caption, Dismiss sets one aside; a
// caption typed on a moment deleted elsewhere brings it back and the
// answer says so. And the words read in a photo show on the moment.
func TestMoments_Alternatives(t *testing.T) {
	remote := enginetest.Start(t, enginetest.WithoutSeat())
	a, _ := startApp(t, t.TempDir(), nil)
	if _, err := a.Settings.UseRemote(remote.URL, remote.Token); err != nil {
		t.Fatal(err)
	}
	other := client.New(remote.URL, remote.Token, remote.Client())
	ctx := context.Background()
	id := ulid.Make().String()
	if _, _, err := other.CreateMoment(ctx, api.CreateMomentRequest{ID: id, ClientRequestID: "c-" + id, Kind: api.KindNote, Caption: "water bill"}); err != nil {
		t.Fatal(err)
	}
	waitMoment(t, a, id, func(m view.Moment) bool { return m.Caption == "water bill" })

	// The desktop changes it while Dad types from "water bill".
	desk := "gas bill"
	base := "water bill"
	if _, _, err := other.EditMoment(ctx, id, api.EditMomentRequest{Caption: &desk, BaseCaption: &base, WrittenBy: "dads-desktop"}); err != nil {
		t.Fatal(err)
	}
	mo, err := a.Moments.SetCaption(id, "electricity bill", "water bill")
	if err != nil || mo.Caption != "electricity bill" || len(mo.Alternatives) != 1 || mo.Alternatives[0].Caption != "gas bill" || mo.Alternatives[0].WrittenBy != "dads-desktop" {
		t.Fatalf("SetCaption over a caption changed elsewhere = %+v, %v; want it, with the desktop's kept", mo, err)
	}
	// Use this one: the desktop's, from the caption shown.
	mo, err = a.Moments.SetCaption(id, "gas bill", "electricity bill")
	if err != nil || mo.Caption != "gas bill" || len(mo.Alternatives) != 0 {
		t.Fatalf("Use this one = %+v, %v; want the desktop's caption, nothing beside", mo, err)
	}
	// Another round, then Dismiss.
	desk = "phone bill"
	base = "gas bill"
	if _, _, err := other.EditMoment(ctx, id, api.EditMomentRequest{Caption: &desk, BaseCaption: &base}); err != nil {
		t.Fatal(err)
	}
	if mo, err = a.Moments.SetCaption(id, "water rates", "gas bill"); err != nil || len(mo.Alternatives) != 1 {
		t.Fatalf("second round = %+v, %v", mo, err)
	}
	if mo, err = a.Moments.Dismiss(id, "phone bill"); err != nil || len(mo.Alternatives) != 0 || mo.Caption != "water rates" {
		t.Fatalf("Dismiss = %+v, %v; want the alternative gone, the caption kept", mo, err)
	}

	// Deleted on the desktop while Dad typed: his caption brings it back.
	if _, err := other.DeleteMoment(ctx, id); err != nil {
		t.Fatal(err)
	}
	if mo, err = a.Moments.SetCaption(id, "water rates, paid", "water rates"); err != nil || !mo.BroughtBack || mo.DeletedAt != "" {
		t.Fatalf("a caption on a moment deleted elsewhere = %+v, %v; want it back, and said", mo, err)
	}

	// Words read in the window show on the moment, the first kept.
	if err := a.Moments.SetWords(id, "Severn Water\nRD/7731/Q", "eng"); err != nil {
		t.Fatal(err)
	}
	if err := a.Moments.SetWords(id, "Severn Wafer", "eng"); err != nil {
		t.Fatal(err)
	}
	waitMoment(t, a, id, func(m view.Moment) bool { return m.Words == "Severn Water\nRD/7731/Q" && m.WordsLang == "eng" })
	if n := remote.OpCount(t, api.OpMomentWords); n != 1 {
		t.Fatalf("%d moment.words ops; want 1", n)
	}
}

// waitMoment waits until the window shows moment id as ok says.
func waitMoment(t *testing.T, a *App, id string, ok func(view.Moment) bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		m, err := a.Moments.Get(id)
		if err == nil && ok(m) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 20 s the window shows %+v, %v", m, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
