package app

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/sparkfamily/spark/app/view"
	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/client"
	"github.com/sparkfamily/spark/engine/enginetest"
	"github.com/sparkfamily/spark/internal/racebuild"
)

// fastSync makes the sync loop's timers short for a test.
func fastSync(t *testing.T) {
	t.Helper()
	busy, idle, settle := syncBusy, syncIdle, syncSettle
	syncBusy, syncIdle, syncSettle = 50*time.Millisecond, 200*time.Millisecond, 10*time.Millisecond
	t.Cleanup(func() { syncBusy, syncIdle, syncSettle = busy, idle, settle })
}

// writePhotos writes n small JPEGs, each of different pixels.
func writePhotos(tb testing.TB, n, seed int) []string {
	tb.Helper()
	dir := tb.TempDir()
	var paths []string
	for i := range n {
		s := seed + i
		img := image.NewRGBA(image.Rect(0, 0, 48, 32))
		for y := range 32 {
			for x := range 48 {
				img.Set(x, y, color.RGBA{uint8(s), uint8(s >> 8), uint8(x*5 + y), 255})
			}
		}
		var b bytes.Buffer
		if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 90}); err != nil {
			tb.Fatal(err)
		}
		p := filepath.Join(dir, fmt.Sprintf("p%04d.jpg", i))
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			tb.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}

// remoteApp starts an app that uses remote as its family engine, and
// records the "moment" events it sends.
func remoteApp(t *testing.T, remote *enginetest.Engine) (*App, *momentShell) {
	t.Helper()
	a := New(Options{DataDir: t.TempDir()})
	sh := &momentShell{}
	a.Startup(context.Background(), sh)
	t.Cleanup(a.Shutdown)
	if _, err := a.Settings.UseRemote(remote.URL, remote.Token); err != nil {
		t.Fatal(err)
	}
	return a, sh
}

// servedView is what the family engine serves, as the window shows it: every
// live moment (newest first), every reading, the kept phrases, and the
// small copies' bytes by media id.
type servedView struct {
	moments  []view.Moment
	readings map[string]view.Reading
	phrases  []api.Phrase
	copies   map[string][]byte
}

func serveOf(tb testing.TB, eng *enginetest.Engine) servedView {
	tb.Helper()
	ctx := context.Background()
	c := client.New(eng.URL, eng.Token, eng.Client())
	s := servedView{readings: map[string]view.Reading{}, copies: map[string][]byte{}}
	for _, m := range eng.Moments(tb) {
		s.moments = append(s.moments, view.MomentView(&m, view.Viewer{}))
		for _, t := range m.Turns {
			got, err := c.Turn(ctx, t.ID)
			if err != nil {
				tb.Fatal(err)
			}
			s.readings[t.ID] = view.ReadingView(*got)
		}
		if m.Copy != nil {
			s.copies[m.Copy.ID] = eng.Media(tb, m.Copy.ID)
		}
	}
	var err error
	if s.phrases, err = c.Phrases(ctx); err != nil {
		tb.Fatal(err)
	}
	return s
}

// engineHead is the family engine's last seq.
func engineHead(tb testing.TB, eng *enginetest.Engine) uint64 {
	tb.Helper()
	h, err := client.New(eng.URL, eng.Token, eng.Client()).Health(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	return h.Seq
}

// caughtUp waits for the app's own sync loop to bring the replica to seq.
func caughtUp(tb testing.TB, a *App, seq uint64) {
	tb.Helper()
	waitFor(tb, fmt.Sprintf("the replica to reach seq %d", seq), func() bool {
		rep := a.state().familyReplica()
		if rep == nil {
			return false
		}
		st, err := rep.State(context.Background())
		if err != nil || st.Seq < seq {
			return false
		}
		s, _ := a.Sync.Status()
		return s.State == SyncUpToDate && !s.Syncing
	})
}

// The proof of issue 8's window: with a family engine, photos captured,
// synced by the app itself, the engine stopped, every moment, reading,
// phrase and small copy is read through the window's bindings with no
// network, the same as the engine served them.
func TestSync_WindowReadsEverythingWithTheEngineStopped(t *testing.T) {
	fastSync(t)
	n := 200
	if testing.Short() || racebuild.Enabled {
		n = 30 // the race detector on a shared machine: the same proof, smaller
	}
	remote := enginetest.Start(t)
	dir := t.TempDir()
	a, _ := startApp(t, dir, nil)
	if _, err := a.Settings.UseRemote(remote.URL, remote.Token); err != nil {
		t.Fatal(err)
	}
	for _, chunk := range slices.Collect(slices.Chunk(writePhotos(t, n, 7000), 50)) {
		res, err := a.Capture.Files("b", chunk)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res {
			if r.Error != nil || r.Duplicate {
				t.Fatalf("capture %s: %+v", r.Path, r)
			}
		}
	}
	waitFor(t, "delivery to the family engine", delivered(a))
	waitFor(t, "Pippa's readings", func() bool {
		return remote.OpCount(t, api.OpTurnFinish) >= n
	})
	rc := client.New(remote.URL, remote.Token, remote.Client())
	newest, _, err := rc.Moments(context.Background(), 1, "")
	if err != nil || len(newest) != 1 {
		t.Fatalf("the engine's newest moment: %v, %v", newest, err)
	}
	if _, _, err := rc.KeepPhrase(context.Background(), api.KeepPhraseRequest{Text: "call the bank", MomentID: newest[0].ID}); err != nil {
		t.Fatal(err)
	}
	want := serveOf(t, remote)
	first := want.moments[0]
	if len(want.moments) != n || len(want.readings) < n || len(want.copies) != n {
		t.Fatalf("the engine serves %d moments, %d readings, %d copies; want %d of each", len(want.moments), len(want.readings), len(want.copies), n)
	}
	caughtUp(t, a, engineHead(t, remote))
	remote.Close()

	// Every page, with no network.
	var got []view.Moment
	before := ""
	for {
		p, err := a.Moments.Page(before, 37)
		if err != nil {
			t.Fatalf("Page(%q) with the engine stopped: %v", before, err)
		}
		got = append(got, p.Moments...)
		if p.Next == "" {
			break
		}
		before = p.Next
	}
	if d := cmp.Diff(want.moments, got); d != "" {
		t.Fatalf("moments with the engine stopped (-served +read):\n%s", d)
	}
	h := a.MediaHandler()
	for _, m := range want.moments {
		mo, err := a.Moments.Get(m.ID)
		if err != nil {
			t.Fatalf("Get(%s): %v", m.ID, err)
		}
		if d := cmp.Diff(m, mo); d != "" {
			t.Fatalf("Get(%s) (-served +read):\n%s", m.ID, d)
		}
		for _, r := range m.Readings {
			rd, err := a.Moments.Reading(r.ID)
			if err != nil {
				t.Fatalf("Reading(%s): %v", r.ID, err)
			}
			if d := cmp.Diff(want.readings[r.ID], rd); d != "" {
				t.Fatalf("Reading(%s) (-served +read):\n%s", r.ID, d)
			}
			if rd.Status != "finished" || rd.Text == "" {
				t.Errorf("reading %s = %+v; want Pippa's finished text", r.ID, rd)
			}
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, m.Thumb, nil))
		if rec.Code != http.StatusOK || !bytes.Equal(rec.Body.Bytes(), want.copies[m.Copy.ID]) {
			t.Fatalf("small copy %s: %d, %d bytes; want the %d bytes served", m.Thumb, rec.Code, rec.Body.Len(), len(want.copies[m.Copy.ID]))
		}
	}
	ps, err := a.Phrases.List()
	if err != nil || len(ps) != len(want.phrases) || ps[0].Text != "call the bank" || ps[0].MomentID != first.ID || ps[0].MomentThumb != first.Thumb || ps[0].MomentGone {
		t.Errorf("Phrases.List() with the engine stopped = %+v, %v; want the kept phrase with its moment", ps, err)
	}
	sv, err := a.Moments.Search("bank")
	if err != nil || len(sv.Results) != 1 || sv.Results[0].Moment.ID != first.ID {
		t.Errorf("Search(bank) with the engine stopped = %+v, %v; want the phrase's moment", sv, err)
	}
	// The original is not on this computer: fetched on demand only.
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, first.Original.URL, nil))
	if rec.Code == http.StatusOK {
		t.Errorf("the original %s was served with the engine stopped; only small copies are kept", first.Original.URL)
	}

	// The status bar says so.
	a.kickSync()
	waitFor(t, "the status to say offline", func() bool {
		s, _ := a.Sync.Status()
		return s.State == SyncOffline && s.AsOf != "" && s.Problem != ""
	})
	s, _ := a.Sync.Status()
	b, _ := json.Marshal(s)
	t.Logf("status with the engine stopped: %s", b)

	// Spark quit and started again with the family engine still stopped:
	// the same window, from this computer's copy.
	a.Shutdown()
	a, _ = startApp(t, dir, nil)
	p, err := a.Moments.Page("", api.MaxPageLimit)
	if err != nil || len(p.Moments) != min(n, api.MaxPageLimit) {
		t.Fatalf("Page after a restart with the engine stopped = %d moments, %v", len(p.Moments), err)
	}
	if d := cmp.Diff(want.moments[:len(p.Moments)], p.Moments); d != "" {
		t.Errorf("Page after a restart (-served +read):\n%s", d)
	}
	rec = httptest.NewRecorder()
	a.MediaHandler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, first.Thumb, nil))
	if rec.Code != http.StatusOK || !bytes.Equal(rec.Body.Bytes(), want.copies[first.Copy.ID]) {
		t.Errorf("small copy after a restart: %d", rec.Code)
	}
	waitFor(t, "the status to say offline after a restart", func() bool {
		s, _ := a.Sync.Status()
		return s.State == SyncOffline && s.AsOf != ""
	})
}

// A reading Pippa finishes on the family engine reaches the window as a
// "moment" event from the sync (the replica's copy of the moment), without
// the window asking.
func TestSync_ReadingArrivesLive(t *testing.T) {
	fastSync(t)
	remote := enginetest.Start(t)
	remote.Pippa.SetDelay(400 * time.Millisecond)
	a, sh := remoteApp(t, remote)
	res, err := a.Capture.Files("b", writePhotos(t, 1, 1))
	if err != nil || len(res) != 1 || res[0].Error != nil {
		t.Fatalf("capture: %v %+v", err, res)
	}
	id := res[0].MomentID
	sh.waitReading(t, id)
	if !a.usesReplica() {
		t.Fatal("the window does not read from the replica")
	}
	if _, err := a.Moments.Delete(id); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a deleted event", func() bool {
		return sh.find(func(e MomentEvent) bool { return e.ID == id && e.Kind == MomentKindDeleted })
	})
	p, err := a.Moments.Page("", 10)
	if err != nil || len(p.Moments) != 0 {
		t.Errorf("Page after the delete = %+v, %v; want none", p, err)
	}
}

// A page of ops that does not fold stops the sync: the window keeps
// showing this computer's copy as it was, the status says what happened
// and what to do, the sync does not start again by itself, and "Rebuild
// this computer's copy" fetches it all again.
func TestSync_BadPageStopsUntilRebuilt(t *testing.T) {
	fastSync(t)
	remote := enginetest.Start(t, enginetest.WithoutSeat())
	target, err := url.Parse(remote.URL)
	if err != nil {
		t.Fatal(err)
	}
	var bad atomic.Bool
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rp := httputil.NewSingleHostReverseProxy(target)
		if bad.Load() && r.URL.Path == "/v1/ops" {
			rp.ModifyResponse = func(resp *http.Response) error {
				var page api.OpsPage
				if err := json.NewDecoder(resp.Body).Decode(&page); err != nil {
					return err
				}
				resp.Body.Close()
				// The first op is the one the replica folded last (checked,
				// not folded again): the new ones are an op this Spark does
				// not know.
				for i := 1; i < len(page.Ops); i++ {
					page.Ops[i].Op = "moment.frobnicate"
				}
				b, _ := json.Marshal(page)
				resp.Body = io.NopCloser(bytes.NewReader(b))
				resp.ContentLength = int64(len(b))
				resp.Header.Set("Content-Length", fmt.Sprint(len(b)))
				return nil
			}
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(proxy.Close)

	a, _ := startApp(t, t.TempDir(), nil)
	if _, err := a.Settings.UseRemote(proxy.URL, remote.Token); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Capture.Files("b", writePhotos(t, 2, 100)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "delivery", delivered(a))
	caughtUp(t, a, engineHead(t, remote))

	bad.Store(true)
	if _, err := a.Capture.Files("b", writePhotos(t, 1, 200)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "delivery", delivered(a))
	waitFor(t, "the sync to stop on the bad page", func() bool {
		s, _ := a.Sync.Status()
		return s.State == SyncProblem
	})
	s, _ := a.Sync.Status()
	if s.Problem != SyncStopUnreadable || s.Detail == "" || s.AsOf == "" {
		t.Errorf("status = %+v; want the problem and what to do, and the time of the copy shown", s)
	}
	t.Logf("the problem shown: %s", s.Problem)
	// This computer's copy as it was, and the capture just delivered that
	// it does not hold yet, still on show.
	p, err := a.Moments.Page("", 10)
	if err != nil || len(p.Moments) != 3 || !p.Moments[0].Pending || p.Moments[1].Pending || p.Moments[2].Pending {
		t.Errorf("Page while stopped = %+v, %v; want the delivered capture (pending) and this computer's 2", p.Moments, err)
	}
	// The page is good again, but the sync stays stopped until a rebuild.
	bad.Store(false)
	a.kickSync()
	time.Sleep(5 * syncIdle)
	if s, _ := a.Sync.Status(); s.State != SyncProblem {
		t.Errorf("status = %+v; want the sync still stopped", s)
	}
	if s, err := a.Sync.Rebuild(); err != nil || s.State != SyncUpToDate || s.Problem != "" {
		t.Fatalf("Rebuild() = %+v, %v; want up to date", s, err)
	}
	p, err = a.Moments.Page("", 10)
	if err != nil || len(p.Moments) != 3 || p.Moments[0].Pending {
		t.Errorf("Page after the rebuild = %+v, %v; want 3 from this computer's copy", p.Moments, err)
	}
}

// The small copies' limit in Settings: checked, kept in settings.json,
// applied to the open replica; a settings.json written before it (the
// previous main's) gives the default 2 GB.
func TestSync_CacheLimit(t *testing.T) {
	dir := t.TempDir()
	// settings.json as the previous main wrote it: no limit.
	old := `{"engine": "local", "local_token": "", "pippa": {"url": "", "model": ""}}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, settingsFile), []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	remote := enginetest.Start(t, enginetest.WithoutSeat())
	a, _ := startApp(t, dir, nil)
	if _, err := a.Settings.UseRemote(remote.URL, remote.Token); err != nil {
		t.Fatal(err)
	}
	if s, _ := a.Sync.Status(); s.CacheBytes != 2<<30 {
		t.Errorf("limit from an old settings file = %d, want 2 GB", s.CacheBytes)
	}
	for _, gb := range []float64{0, -1, 0.01, 1e9} {
		if _, err := a.Sync.SetCacheLimit(gb); toUIError(err).Code != CodeBadCacheSize || toUIError(err).Min != minCacheGB || toUIError(err).Max != maxCacheGB {
			t.Errorf("SetCacheLimit(%g) = %v; want bad input saying the bounds", gb, err)
		}
	}
	s, err := a.Sync.SetCacheLimit(0.5)
	if err != nil || s.CacheBytes != 1<<29 {
		t.Fatalf("SetCacheLimit(0.5) = %+v, %v; want 512 MiB", s, err)
	}
	budget := a.state().familyReplica().Copies().Budget()
	if budget != 1<<29 {
		t.Errorf("the replica's budget = %d, want 512 MiB", budget)
	}
	p, err := loadPrefs(dir)
	if err != nil || p.CacheBytes != 1<<29 {
		t.Errorf("settings.json holds %d, %v; want 512 MiB", p.CacheBytes, err)
	}
	// Kept across a restart.
	a.Shutdown()
	a, _ = startApp(t, dir, nil)
	if s, _ := a.Sync.Status(); s.CacheBytes != 1<<29 {
		t.Errorf("limit after a restart = %d, want 512 MiB", s.CacheBytes)
	}
}

// A write sent while the window reads the replica keeps showing until a
// sync brings its op: the caption just saved, the phrase just kept and
// the moment just deleted never flip back in between.
func TestSync_SentWritesShowUntilSynced(t *testing.T) {
	fastSync(t)
	remote := enginetest.Start(t, enginetest.WithoutSeat())
	a, sh := remoteApp(t, remote)
	res, err := a.Capture.Files("b", writePhotos(t, 2, 7))
	if err != nil || len(res) != 2 || res[0].Error != nil || res[1].Error != nil {
		t.Fatalf("capture: %v %+v", err, res)
	}
	kept, gone := res[0].MomentID, res[1].MomentID
	waitFor(t, "both photos delivered", func() bool {
		st, err := a.Settings.Status()
		return err == nil && st.Waiting == 0
	})
	caughtUp(t, a, engineHead(t, remote))
	// No sync from here until the writes are read back.
	a.stopSync()
	sh.mu.Lock()
	before := len(sh.moments)
	sh.mu.Unlock()

	if mo, err := a.Moments.SetCaption(kept, "The council's letter", captionShown(a, kept)); err != nil || mo.WaitsFor != "" {
		t.Fatalf("SetCaption = %+v, %v; want it sent", mo, err)
	}
	if _, err := a.Phrases.Keep("council tax", kept); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Moments.Delete(gone); err != nil {
		t.Fatal(err)
	}
	if mo, err := a.Moments.Get(kept); err != nil || mo.Caption != "The council's letter" || mo.WaitsFor != "" {
		t.Errorf("Get before the sync = %q (waiting %q), %v; want the new caption, not waiting", mo.Caption, mo.WaitsFor, err)
	}
	p, err := a.Moments.Page("", 10)
	if err != nil || len(p.Moments) != 1 || p.Moments[0].ID != kept || p.Moments[0].Caption != "The council's letter" {
		t.Errorf("Page before the sync = %+v, %v; want only the kept moment with its new caption", p.Moments, err)
	}
	ps, err := a.Phrases.List()
	if err != nil || len(ps) != 1 || ps[0].Text != "council tax" || ps[0].WaitsFor != "" {
		t.Errorf("Phrases before the sync = %+v, %v; want the kept phrase", ps, err)
	}
	waitFor(t, "the caption's moment event", func() bool {
		return sh.find(func(e MomentEvent) bool {
			return e.ID == kept && e.Kind == MomentKindChanged && e.Moment != nil && e.Moment.Caption == "The council's letter"
		})
	})
	sh.mu.Lock()
	for _, e := range sh.moments[before:] {
		if e.ID == kept && e.Moment != nil && e.Moment.Caption != "The council's letter" {
			t.Errorf("a moment event showed the caption %q after the new one was sent", e.Moment.Caption)
		}
	}
	sh.mu.Unlock()
	if st, err := a.state().readsReplica().State(context.Background()); err != nil || st.Seq >= engineHead(t, remote) {
		t.Fatalf("the replica is at seq %d (%v): it must not have synced the writes yet", st.Seq, err)
	}

	// The sync brings them; nothing is held any more, and all still shows.
	a.startSync(a.state().ob)
	caughtUp(t, a, engineHead(t, remote))
	waitFor(t, "the held writes let go", func() bool { return len(a.heldWrites(context.Background(), a.state())) == 0 })
	if mo, err := a.Moments.Get(kept); err != nil || mo.Caption != "The council's letter" {
		t.Errorf("Get after the sync = %q, %v", mo.Caption, err)
	}
}

// The status bar never says the family engine can't be reached beside
// "Up to date": the status poll that finds it unreachable turns the sync
// line offline at once (a "sync" event), without waiting for the next
// sync, and finding it back runs a sync that says up to date again.
func TestSync_StatusAgreesWithTheEngineState(t *testing.T) {
	idle := syncIdle
	syncIdle = time.Hour // no sync but the ones asked for: the status poll must do it
	t.Cleanup(func() { syncIdle = idle })
	remote := enginetest.Start(t, enginetest.WithoutSeat())
	target, err := url.Parse(remote.URL)
	if err != nil {
		t.Fatal(err)
	}
	var down atomic.Bool
	rp := httputil.NewSingleHostReverseProxy(target)
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if down.Load() {
			// As an engine gone from the network: the connection drops.
			if c, _, err := http.NewResponseController(w).Hijack(); err == nil {
				c.Close()
			}
			return
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(proxy.Close)

	a, sh := startApp(t, t.TempDir(), nil)
	if _, err := a.Settings.UseRemote(proxy.URL, remote.Token); err != nil {
		t.Fatal(err)
	}
	caughtUp(t, a, engineHead(t, remote))

	down.Store(true)
	events := sh.count("sync")
	st, err := a.Settings.Status()
	if err != nil || st.Reachable {
		t.Fatalf("Status() with the engine gone = %+v, %v; want unreachable", st, err)
	}
	if s, _ := a.Sync.Status(); s.State != SyncOffline || s.Problem == "" {
		t.Errorf("sync status beside an unreachable engine = %+v; want offline, with why", s)
	}
	if sh.count("sync") == events {
		t.Error("no sync event told the window the copy is offline")
	}

	down.Store(false)
	if st, err := a.Settings.Status(); err != nil || !st.Reachable {
		t.Fatalf("Status() with the engine back = %+v, %v; want reachable", st, err)
	}
	waitFor(t, "the sync line up to date again", func() bool {
		s, _ := a.Sync.Status()
		return s.State == SyncUpToDate
	})
}

// A small copy on screen survives a budget cut that removes the others:
// the tiles the window says are in view and the open moment are pinned;
// once they no longer show, they may go too.
func TestSync_OnScreenCopiesSurviveEviction(t *testing.T) {
	remote := enginetest.Start(t, enginetest.WithoutSeat())
	a, _ := startApp(t, t.TempDir(), nil)
	if _, err := a.Settings.UseRemote(remote.URL, remote.Token); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Capture.Files("b", writePhotos(t, 4, 300)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "delivery", delivered(a))
	caughtUp(t, a, engineHead(t, remote))
	rep := a.state().familyReplica()
	p, err := a.Moments.Page("", 10)
	if err != nil || len(p.Moments) != 4 {
		t.Fatalf("Page = %+v, %v; want 4 moments", p, err)
	}
	sha := func(i int) string {
		mo, err := rep.Moment(context.Background(), p.Moments[i].ID)
		if err != nil || mo.Copy == nil {
			t.Fatalf("moment %d in the replica: %+v, %v", i, mo, err)
		}
		return mo.Copy.SHA256
	}
	for i := range 4 {
		if !rep.Copies().Has(sha(i)) {
			t.Fatalf("moment %d has no small copy on this computer: %+v", i, p.Moments[i])
		}
	}
	cached := func() []bool {
		var out []bool
		for i := range 4 {
			out = append(out, rep.Copies().Has(sha(i)))
		}
		return out
	}
	// Two tiles in view (and an id this computer does not hold), the
	// first of them open too.
	if err := a.Moments.OnScreen([]string{p.Moments[0].ID, p.Moments[2].ID, p.Moments[0].ID, "01J00000000000000000000000"}); err != nil {
		t.Fatal(err)
	}
	if err := rep.Copies().SetBudget(1); err != nil {
		t.Fatal(err)
	}
	if got, want := cached(), []bool{true, false, true, false}; !slices.Equal(got, want) {
		t.Fatalf("copies kept after the cut = %v; want %v (those on screen)", got, want)
	}
	// The tile on screen still shows, from this computer.
	rec := httptest.NewRecorder()
	a.MediaHandler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, p.Moments[2].Thumb, nil))
	if rec.Code != http.StatusOK || rec.Body.Len() == 0 {
		t.Errorf("the thumb on screen: %d, %d bytes; want it served", rec.Code, rec.Body.Len())
	}
	// Scrolled on: only the third shows; the first may go now.
	if err := a.Moments.OnScreen([]string{p.Moments[2].ID}); err != nil {
		t.Fatal(err)
	}
	if err := rep.Copies().SetBudget(1); err != nil {
		t.Fatal(err)
	}
	if got, want := cached(), []bool{false, false, true, false}; !slices.Equal(got, want) {
		t.Fatalf("copies kept after scrolling on = %v; want %v", got, want)
	}
	// Nothing on screen: nothing pinned.
	if err := a.Moments.OnScreen(nil); err != nil {
		t.Fatal(err)
	}
	if err := rep.Copies().SetBudget(1); err != nil {
		t.Fatal(err)
	}
	if got, want := cached(), []bool{false, false, false, false}; !slices.Equal(got, want) {
		t.Fatalf("copies kept with nothing on screen = %v; want %v", got, want)
	}
}
