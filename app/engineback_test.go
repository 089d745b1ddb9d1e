package app

import (
	"context"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/sparkfamily/spark/engine/client"
	"github.com/sparkfamily/spark/engine/enginetest"
	"github.com/sparkfamily/spark/internal/poll"
	"github.com/sparkfamily/spark/outbox"
)

// Issue 36, item 1: a caption changed while the family engine could not be
// reached goes as soon as the window's own checks (Settings.Status, every
// 4 s) see the engine answer again: within 5 s of the engine being back,
// with no "Send now". The outbox's back-off is half an hour here, so only
// the engine answering can end the wait; in the report, the default
// back-off's 20 s and 54 s.
func TestEngineBack_CaptionMadeOfflineGoesAtOnce(t *testing.T) {
	oldOpts, oldWait := outboxOptions, writeWait
	outboxOptions = outbox.Options{BackoffBase: time.Hour, BackoffCap: time.Hour, Rand: func() float64 { return 0.5 }}
	writeWait = 300 * time.Millisecond
	t.Cleanup(func() { outboxOptions, writeWait = oldOpts, oldWait })

	remote := enginetest.Start(t)
	cl := client.New(remote.URL, remote.Token, remote.Client())
	link := newLinkProxy(t, remote.URL)
	a, _ := startApp(t, t.TempDir(), nil)
	if _, err := a.Settings.UseRemote(link.srv.URL, remote.Token); err != nil {
		t.Fatal(err)
	}
	note := ulid.Make().String()
	if _, err := a.Moments.AddNote(note, "the letter"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the note sent", delivered(a))

	link.set(true, false) // the family engine goes away
	if mo, err := a.Moments.SetCaption(note, "the letter from Anna", captionShown(a, note)); err != nil || mo.WaitsFor == "" {
		t.Fatalf("SetCaption offline = %+v, %v; want it waiting", mo, err)
	}
	waitFor(t, "the caption waiting after trouble", func() bool {
		ws, err := a.Outbox.Writes()
		return err == nil && len(ws) == 1 && ws[0].NextTry != ""
	})
	// The window's checks while the engine is away.
	if st, err := a.Settings.Status(); err != nil || st.Reachable || st.Waiting != 1 {
		t.Fatalf("Status offline = %+v, %v; want unreachable, 1 waiting", st, err)
	}
	// The Outbox says it waits for the family engine, as it does.
	if ws, err := a.Outbox.Writes(); err != nil || len(ws) != 1 || ws[0].WaitsFor != WaitsFamily {
		t.Fatalf("the Outbox's writes offline = %+v, %v; want the caption waiting for the family engine", ws, err)
	}

	link.set(false, false) // the engine is back
	back := time.Now()
	// The window asks, as main.ts does, every 4 s; the first a second
	// after the engine is back.
	ctx, stop := context.WithCancel(context.Background())
	t.Cleanup(stop)
	go func() {
		tick := time.NewTimer(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			a.Settings.Status()
			tick.Reset(4 * time.Second)
		}
	}()
	poll.Until(t, 5*time.Second, "the caption at the family engine within 5 s of it being back", func() bool {
		m, err := cl.Moment(context.Background(), note)
		return err == nil && m.Caption == "the letter from Anna"
	})
	t.Logf("the caption arrived %s after the engine was back", time.Since(back).Round(10*time.Millisecond))
	waitFor(t, "nothing waiting", delivered(a))
}
