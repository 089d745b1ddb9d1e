package app

import (
	"context"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"testing"

	"github.com/sparkfamily/spark/app/view"
	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/auth"
	"github.com/sparkfamily/spark/engine/client"
	"github.com/sparkfamily/spark/engine/enginetest"
	"github.com/sparkfamily/spark/outbox"
)

// appAs starts an app that uses the family engine at url with token.
func appAs(t *testing.T, url, token string) *App {
	a, _ := appShellAs(t, url, token)
	return a
}

// appShellAs is appAs, with the shell that records the app's events.
func appShellAs(t *testing.T, url, token string) (*App, *momentShell) {
	t.Helper()
	a := New(Options{DataDir: t.TempDir()})
	sh := &momentShell{}
	a.Startup(context.Background(), sh)
	t.Cleanup(a.Shutdown)
	if _, err := a.Settings.UseRemote(url, token); err != nil {
		t.Fatal(err)
	}
	return a, sh
}

// TestViewer_Learned: once Spark knows whose key it holds, every screen
// reads what it shows again (a "many" moment event, and "phrases"), since
// what it read before named no one.
func TestViewer_Learned(t *testing.T) {
	fastSync(t)
	h := newHousehold(t)
	a, sh := appShellAs(t, h.eng.URL, h.dad)
	seenBy(t, a, h)
	if !sh.find(func(e MomentEvent) bool { return e.Kind == MomentKindMany }) {
		t.Error("no \"many\" moment event once the member was known")
	}
	sh.mu.Lock()
	events := slices.Clone(sh.events)
	sh.mu.Unlock()
	if !slices.Contains(events, "phrases") {
		t.Errorf("no \"phrases\" event once the member was known; events: %v", events)
	}
}

// household is a family engine where Mum added a moment and kept a phrase
// of it, and Dad (a device token of the member dad) did the same.
type household struct {
	eng                  *enginetest.Engine
	dad                  string // Dad's device token
	mums, dads           *api.Moment
	mumPhrase, dadPhrase *api.Phrase
}

func newHousehold(t *testing.T) household {
	t.Helper()
	eng := enginetest.Start(t, enginetest.WithoutSeat())
	h := household{eng: eng, dad: eng.AddMemberToken(t, "dads-laptop", "dad", auth.ScopeDevice)}
	mum := eng.AddMemberToken(t, "mums-phone", "mum", auth.ScopeDevice)
	ctx := context.Background()
	add := func(tok, caption, phrase string) (*api.Moment, *api.Phrase) {
		cl := client.New(eng.URL, tok, eng.Client())
		m, _, err := cl.CreateMoment(ctx, api.CreateMomentRequest{Kind: api.KindNote, Caption: caption})
		if err != nil {
			t.Fatal(err)
		}
		p, _, err := cl.KeepPhrase(ctx, api.KeepPhraseRequest{Text: phrase, MomentID: m.ID})
		if err != nil {
			t.Fatal(err)
		}
		return m, p
	}
	h.mums, h.mumPhrase = add(mum, "the school play", "bring a torch")
	h.dads, h.dadPhrase = add(h.dad, "the boiler", "bleed the radiators")
	return h
}

// seen is what the window shows of the household's moments and phrases,
// once the app's replica caught up: each moment's AddedBy (from Get and
// from List), each phrase's KeptBy and KeeperOnly, by id.
type seen struct {
	addedBy, listed map[string]string
	ownerOnly       map[string]bool
	phrases         map[string]view.Phrase
}

func seenBy(t *testing.T, a *App, h household) seen {
	t.Helper()
	caughtUp(t, a, engineHead(t, h.eng))
	s := seen{addedBy: map[string]string{}, listed: map[string]string{}, ownerOnly: map[string]bool{}, phrases: map[string]view.Phrase{}}
	for _, m := range []*api.Moment{h.mums, h.dads} {
		v, err := a.Moments.Get(m.ID)
		if err != nil {
			t.Fatal(err)
		}
		s.addedBy[m.ID], s.ownerOnly[m.ID] = v.AddedBy, v.OwnerOnly
	}
	page, err := a.Moments.Page("", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range page.Moments {
		s.listed[v.ID] = v.AddedBy
	}
	ps, err := a.Phrases.List()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		s.phrases[p.ID] = view.Phrase{KeptBy: p.KeptBy, KeeperOnly: p.KeeperOnly}
	}
	return s
}

// TestViewer (issue 32): the window names the family member who added a
// moment or kept a phrase only when it is someone else than the member
// Spark's key belongs to (GET /v1/me), from its replica of the family
// engine, and, with a device key, says only they may change it; with an
// engine too old to say who Spark's key is, it names no one.
func TestViewer(t *testing.T) {
	fastSync(t)
	h := newHousehold(t)

	t.Run("DadsDevice", func(t *testing.T) {
		a := appAs(t, h.eng.URL, h.dad)
		s := seenBy(t, a, h)
		for _, got := range []map[string]string{s.addedBy, s.listed} {
			if got[h.mums.ID] != "mum" || got[h.dads.ID] != "" {
				t.Errorf("AddedBy: Mum's moment %q, Dad's %q; want mum and nothing", got[h.mums.ID], got[h.dads.ID])
			}
		}
		if !s.ownerOnly[h.mums.ID] || s.ownerOnly[h.dads.ID] {
			t.Errorf("OwnerOnly: Mum's moment %v, Dad's %v; want only Mum's", s.ownerOnly[h.mums.ID], s.ownerOnly[h.dads.ID])
		}
		if got, want := s.phrases[h.mumPhrase.ID], (view.Phrase{KeptBy: "mum", KeeperOnly: true}); got != want {
			t.Errorf("Mum's phrase shows %+v, want %+v", got, want)
		}
		if got := s.phrases[h.dadPhrase.ID]; got != (view.Phrase{}) {
			t.Errorf("Dad's phrase shows %+v, want no keeper named", got)
		}

		// Turned down anyway (sent before the window knew): the Outbox
		// names whose they are while they wait (a 403 waits for a key
		// that may change, outbox.Classify).
		if _, err := a.Phrases.Remove(h.mumPhrase.ID); err != nil {
			t.Fatalf("removing Mum's phrase: %v", err)
		}
		if _, err := a.Moments.SetCaption(h.mums.ID, "dad was here", captionShown(a, h.mums.ID)); err != nil {
			t.Fatalf("editing Mum's caption: %v", err)
		}
		owners := map[string]string{}
		waitFor(t, "both writes turned down", func() bool {
			ws, err := a.Outbox.Writes()
			if err != nil {
				t.Fatal(err)
			}
			clear(owners)
			for _, w := range ws {
				owners[w.Kind] = w.Owner
			}
			return len(ws) == 2 && owners[string(outbox.WriteUnkeep)] != "" && owners[string(outbox.WriteCaption)] != ""
		})
		if want := map[string]string{string(outbox.WriteUnkeep): "mum", string(outbox.WriteCaption): "mum"}; !maps.Equal(owners, want) {
			t.Errorf("the Outbox's refused writes name %v, want %v", owners, want)
		}
	})

	t.Run("Admin", func(t *testing.T) {
		// The engine owner's key may remove Mum's phrase: named, but not
		// the keeper's only.
		s := seenBy(t, appAs(t, h.eng.URL, h.eng.Token), h)
		if s.addedBy[h.mums.ID] != "mum" || s.addedBy[h.dads.ID] != "dad" {
			t.Errorf("AddedBy: Mum's %q, Dad's %q; want mum and dad", s.addedBy[h.mums.ID], s.addedBy[h.dads.ID])
		}
		if s.ownerOnly[h.mums.ID] || s.ownerOnly[h.dads.ID] {
			t.Error("the engine owner's key may change anyone's moment; OwnerOnly is set")
		}
		if got, want := s.phrases[h.mumPhrase.ID], (view.Phrase{KeptBy: "mum"}); got != want {
			t.Errorf("Mum's phrase shows %+v, want %+v", got, want)
		}
	})

	t.Run("OlderEngine", func(t *testing.T) {
		// An engine before GET /v1/me: every other route goes through.
		u, err := url.Parse(h.eng.URL)
		if err != nil {
			t.Fatal(err)
		}
		proxy := httputil.NewSingleHostReverseProxy(u)
		old := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == api.MePath {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusNotFound)
				w.Write([]byte(`{"error":{"code":"not_found","message":"there is no route GET /v1/me in the v1 contract"}}`))
				return
			}
			proxy.ServeHTTP(w, r)
		}))
		t.Cleanup(old.Close)
		s := seenBy(t, appAs(t, old.URL, h.dad), h)
		if s.addedBy[h.mums.ID] != "" || s.listed[h.mums.ID] != "" || s.ownerOnly[h.mums.ID] {
			t.Errorf("AddedBy of Mum's moment %q, %q; want nothing from an engine that can't say who Spark is", s.addedBy[h.mums.ID], s.listed[h.mums.ID])
		}
		if got := s.phrases[h.mumPhrase.ID]; got != (view.Phrase{}) {
			t.Errorf("Mum's phrase shows %+v, want no keeper named", got)
		}
	})
}
