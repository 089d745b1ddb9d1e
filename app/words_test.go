package app

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/sparkfamily/spark/app/view"
	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/auth"
	"github.com/sparkfamily/spark/engine/enginetest"
	"github.com/sparkfamily/spark/outbox"
)

// Issue 37: "two windows on the same family engine reading the same
// moment produce one set of words". Two apps (two data folders, two
// device tokens of Dad's) on one real family engine over loopback, each
// with its own outbox and replica (SQLite), both read the same photo at
// once and send what each read (the readers differ: one misreads a
// letter). The engine keeps the first words; both windows end showing
// those, the log holds one moment.words op, and no write of either outbox
// was turned down.
func TestWords_TwoWindowsReadTheSameMoment(t *testing.T) {
	fastSync(t)
	for _, tc := range []struct {
		name     string
		laptop   string // what each computer read
		desktop  string
		together bool // both send at once, or the laptop first
	}{
		{name: "both at once", laptop: "Severn Water\nYour reference RD/7731/Q", desktop: "Severn Waler\nYour reference RD/7731/O", together: true},
		// The laptop's reader was sure of nothing: its no words are the
		// photo's words, and the desktop's later reading changes nothing.
		{name: "no words first", laptop: "", desktop: "Severn Water"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			remote := enginetest.Start(t, enginetest.WithoutSeat())
			laptop := deviceApp(t, remote, "dads-laptop")
			desktop := deviceApp(t, remote, "dads-desktop")

			res, err := laptop.Capture.Files("b", writePhotos(t, 1, 37))
			if err != nil || len(res) != 1 || res[0].Error != nil {
				t.Fatalf("capture: %v %+v", err, res)
			}
			id := res[0].MomentID
			waitFor(t, "the photo delivered", delivered(laptop))
			head := engineHead(t, remote)
			caughtUp(t, laptop, head)
			caughtUp(t, desktop, head)
			for _, a := range []*App{laptop, desktop} {
				if m, err := a.Moments.Get(id); err != nil || m.ID != id || m.WordsLang != "" {
					t.Fatalf("before the reads: %+v, %v; want the photo, without words", m, err)
				}
			}

			send := func(a *App, text string) error { return a.Moments.SetWords(id, text, "eng") }
			if tc.together {
				var wg sync.WaitGroup
				errs := make([]error, 2)
				start := make(chan struct{})
				for i, r := range []struct {
					a    *App
					text string
				}{{laptop, tc.laptop}, {desktop, tc.desktop}} {
					wg.Go(func() {
						<-start
						errs[i] = send(r.a, r.text)
					})
				}
				close(start)
				wg.Wait()
				if errs[0] != nil || errs[1] != nil {
					t.Fatalf("SetWords: laptop %v, desktop %v", errs[0], errs[1])
				}
			} else {
				if err := send(laptop, tc.laptop); err != nil {
					t.Fatal(err)
				}
				waitFor(t, "the laptop's words sent", wordsSent(laptop, id))
				// The desktop's copy holds the laptop's words when it reads
				// too (a window shows a photo before its words sync): with
				// its sync stopped, what it shows once its own are sent is
				// its copy's words, which the engine keeps, not its own.
				caughtUp(t, desktop, engineHead(t, remote))
				desktop.stopSync()
				if err := send(desktop, tc.desktop); err != nil {
					t.Fatal(err)
				}
				waitFor(t, "the desktop's words sent", wordsSent(desktop, id))
				if m, err := desktop.Moments.Get(id); err != nil || m.Words != tc.laptop || m.WordsLang != "eng" {
					t.Errorf("the desktop, its words sent, shows %q (%q), %v; want the words its copy holds, %q", m.Words, m.WordsLang, err, tc.laptop)
				}
				desktop.startSync(desktop.state().ob)
			}
			for _, a := range []*App{laptop, desktop} {
				waitFor(t, "the words sent", wordsSent(a, id))
			}

			ms := remote.Moments(t)
			if len(ms) != 1 || ms[0].Words == nil {
				t.Fatalf("the engine's moments: %+v; want the photo with words", ms)
			}
			kept := *ms[0].Words
			if kept.Lang != "eng" || (kept.Text != tc.laptop && kept.Text != tc.desktop) {
				t.Fatalf("the engine kept %+v; want one of the two readings", kept)
			}
			if !tc.together && kept.Text != tc.laptop {
				t.Fatalf("the engine kept %q; want the first words sent, %q", kept.Text, tc.laptop)
			}
			if n := remote.OpCount(t, api.OpMomentWords); n != 1 {
				t.Errorf("the log holds %d moment.words ops; want 1", n)
			}

			// Each window ends showing the words the engine kept, once its
			// copy of the engine has them.
			head = engineHead(t, remote)
			for name, a := range map[string]*App{"laptop": laptop, "desktop": desktop} {
				caughtUp(t, a, head)
				waitFor(t, name+"'s sent writes let go", func() bool { return len(a.heldWrites(context.Background(), a.state())) == 0 })
				m, err := a.Moments.Get(id)
				if err != nil || m.Words != kept.Text || m.WordsLang != kept.Lang {
					t.Errorf("the %s shows words %q (%q), %v; want the engine's %q (%q)", name, m.Words, m.WordsLang, err, kept.Text, kept.Lang)
				}
				p, err := a.Moments.Page("", 10)
				if err != nil || len(p.Moments) != 1 || p.Moments[0].Words != kept.Text {
					t.Errorf("the %s's page: %+v, %v; want the photo with the engine's words", name, p.Moments, err)
				}
				// Nothing turned down: the words write was sent at its first
				// try, and nothing waits or is parked.
				w, err := a.state().ob.Write(context.Background(), "words:"+id)
				if err != nil || w.State != outbox.Done || w.LastCode != "" || w.Attempts > 1 {
					t.Errorf("the %s's words write: %+v, %v; want done, never refused", name, w, err)
				}
				if st, err := a.Outbox.Status(); err != nil || st.Waiting.Total() != 0 || st.Parked.Total() != 0 {
					t.Errorf("the %s's outbox: %d waiting, %d parked (%v); want none", name, st.Waiting.Total(), st.Parked.Total(), err)
				}
			}
		})
	}
}

// deviceApp starts an app on the family engine remote with a device
// token of Dad's named name.
func deviceApp(t *testing.T, remote *enginetest.Engine, name string) *App {
	t.Helper()
	a, _ := startApp(t, t.TempDir(), nil)
	if _, err := a.Settings.UseRemote(remote.URL, remote.AddMemberToken(t, name, "dad", auth.ScopeDevice)); err != nil {
		t.Fatal(fmt.Errorf("%s: UseRemote: %w", name, err))
	}
	return a
}

// wordsSent says whether a's words write of moment id was sent.
func wordsSent(a *App, id string) func() bool {
	return func() bool {
		w, err := a.state().ob.Write(context.Background(), "words:"+id)
		return err == nil && w.State == outbox.Done
	}
}

// TestWords_ReadOfflineBeforeSent: a photo captured while the family
// engine can't be reached is read from its small copy on this computer
// (issue 37: "shows its words, before the network ever comes"): its
// words, given before the photo is sent, show on the moment at once and
// wait in the outbox behind the capture; once the engine is back, the
// photo goes first, then its words, each once, nothing refused.
func TestWords_ReadOfflineBeforeSent(t *testing.T) {
	fastSync(t)
	remote := enginetest.Start(t, enginetest.WithoutSeat())
	link := newLinkProxy(t, remote.URL)
	a, _ := startApp(t, t.TempDir(), nil)
	if _, err := a.Settings.UseRemote(link.srv.URL, remote.Token); err != nil {
		t.Fatal(err)
	}
	link.set(true, false)

	res, err := a.Capture.Files("b", writePhotos(t, 1, 41))
	if err != nil || len(res) != 1 || res[0].Error != nil {
		t.Fatalf("capture: %v %+v", err, res)
	}
	id := res[0].MomentID
	m, err := a.Moments.Get(id)
	if err != nil || !m.Pending || m.Thumb == "" || m.WordsLang != "" {
		t.Fatalf("the capture offline: %+v, %v; want it waiting, with its small copy, no words", m, err)
	}
	const words = "Severn Water\nYour reference RD/7731/Q"
	if err := a.Moments.SetWords(id, words, "eng"); err != nil {
		t.Fatalf("SetWords offline: %v", err)
	}
	if m, err := a.Moments.Get(id); err != nil || !m.Pending || m.Words != words || m.WordsLang != "eng" {
		t.Errorf("Get offline, its words given: %+v, %v; want the waiting photo with its words", m, err)
	}
	if p, err := a.Moments.Page("", 10); err != nil || len(p.Moments) != 1 || p.Moments[0].Words != words {
		t.Errorf("Page offline: %+v, %v; want the waiting photo with its words", p.Moments, err)
	}
	// Found by a word in it, a partial one too, before anything is sent.
	for _, q := range []string{"7731", "sev"} {
		found, err := a.Moments.Search(q)
		if err != nil || len(found.Results) != 1 || found.Results[0].Moment.ID != id || len(found.Results[0].Matches) != 1 ||
			found.Results[0].Matches[0].Source != "words" || !hasHit(found.Results[0].Matches[0].Parts) {
			t.Errorf("Search(%q) offline = %+v, %v; want the waiting photo, its words marked", q, found, err)
		}
	}
	w, err := a.state().ob.Write(context.Background(), "words:"+id)
	if err != nil || w.State != outbox.Pending || w.Attempts != 0 {
		t.Fatalf("the words write offline: %+v, %v; want it waiting, not tried (behind the capture)", w, err)
	}

	link.set(false, false)
	if err := a.Outbox.SendNow(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the photo and its words sent", delivered(a))
	ms := remote.Moments(t)
	if len(ms) != 1 || ms[0].ID != id || ms[0].Words == nil || ms[0].Words.Text != words {
		t.Fatalf("the engine's moments: %+v; want the photo with its words", ms)
	}
	if n := remote.OpCount(t, api.OpMomentWords); n != 1 {
		t.Errorf("the log holds %d moment.words ops; want 1", n)
	}
	waitFor(t, "the words found once, from the engine's copy", func() bool {
		found, err := a.Moments.Search("7731")
		return err == nil && len(found.Results) == 1 && found.Results[0].Moment.ID == id && len(found.Results[0].Matches) == 1
	})
	w, err = a.state().ob.Write(context.Background(), "words:"+id)
	if err != nil || w.State != outbox.Done || w.LastCode != "" || w.Attempts > 1 {
		t.Errorf("the words write: %+v, %v; want sent at its first try", w, err)
	}
	caughtUp(t, a, engineHead(t, remote))
	if m, err := a.Moments.Get(id); err != nil || m.Pending || m.Words != words {
		t.Errorf("Get once sent and synced: %+v, %v; want the photo with its words", m, err)
	}
}

// hasHit says whether a match marks a word.
func hasHit(parts []view.SearchPart) bool {
	for _, p := range parts {
		if p.Hit {
			return true
		}
	}
	return false
}
