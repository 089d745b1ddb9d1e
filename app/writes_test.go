package app

import (
	"cmp"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"
	"github.com/sparkfamily/spark/app/view"
	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/enginetest"
	"github.com/sparkfamily/spark/outbox"
)

// linkProxy stands between the app and a real family engine: down, it
// cuts every connection before anything is forwarded (the engine
// unreachable); lossy, it forwards the first write of each route and cuts
// the connection after the engine answered (the reply lost after commit).
type linkProxy struct {
	srv  *httptest.Server
	rp   *httputil.ReverseProxy
	mu   sync.Mutex
	down bool
	lost map[string]bool // route -> reply already lost once
	lose bool
}

func newLinkProxy(t *testing.T, target string) *linkProxy {
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	p := &linkProxy{rp: httputil.NewSingleHostReverseProxy(u), lost: map[string]bool{}}
	p.srv = httptest.NewServer(p)
	t.Cleanup(func() { p.srv.CloseClientConnections(); p.srv.Close() })
	return p
}

func (p *linkProxy) set(down, lose bool) {
	p.mu.Lock()
	p.down, p.lose = down, lose
	p.mu.Unlock()
}

func (p *linkProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	down := p.down
	route := r.Method + " " + strings.Join(strings.Split(r.URL.Path, "/")[:3], "/")
	lose := p.lose && r.Method != http.MethodGet && !p.lost[route]
	if lose {
		p.lost[route] = true
	}
	p.mu.Unlock()
	if down {
		cut(w)
		return
	}
	if lose {
		rec := httptest.NewRecorder()
		p.rp.ServeHTTP(rec, r) // the engine commits and answers...
		cut(w)                 // ...and the answer is lost
		return
	}
	p.rp.ServeHTTP(w, r)
}

func cut(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		tc.SetLinger(0)
	}
	conn.Close()
}

// TestWrites_WaitOfflineThenArriveOnce: with the family engine
// unreachable, a note, its caption edit, a kept phrase, a careful reading
// and a reading asked again each answer at once as waiting and show in the
// reads; Spark restarts; the engine comes back behind a link that loses
// the first reply of each write; each arrives exactly once.
func TestWrites_WaitOfflineThenArriveOnce(t *testing.T) {
	old := writeWait
	writeWait = 300 * time.Millisecond
	t.Cleanup(func() { writeWait = old })
	remote := enginetest.Start(t)
	link := newLinkProxy(t, remote.URL)
	dir := t.TempDir()
	a, _ := startApp(t, dir, nil)
	if _, err := a.Settings.UseRemote(link.srv.URL, remote.Token); err != nil {
		t.Fatal(err)
	}
	link.set(true, false)

	note, job, again := ulid.Make().String(), ulid.Make().String(), ulid.Make().String()
	mo, err := a.Moments.AddNote(note, "call the pharmacy")
	if err != nil || mo.ID != note || mo.WaitsFor != WaitsFamily || !mo.Pending {
		t.Fatalf("AddNote offline = %+v, %v; want the note, waiting", mo, err)
	}
	if mo, err = a.Moments.SetCaption(note, "call about the prescription", captionShown(a, note)); err != nil || mo.Caption != "call about the prescription" || mo.WaitsFor == "" {
		t.Fatalf("SetCaption offline = %+v, %v", mo, err)
	}
	ph, err := a.Phrases.Keep("red door", note)
	if err != nil || ph.ID != "keep:red door" || ph.WaitsFor == "" {
		t.Fatalf("Keep offline = %+v, %v", ph, err)
	}
	c, err := a.Moments.AskCareful(note, job)
	if err != nil || c.JobID != job || c.WaitsFor == "" || len(c.Readings) != 0 {
		t.Fatalf("AskCareful offline = %+v, %v", c, err)
	}
	r, err := a.Moments.ReadAgain(note, again)
	if err != nil || r.Status != view.ReadingWaiting {
		t.Fatalf("ReadAgain offline = %+v, %v", r, err)
	}
	if g, err := a.Moments.Get(note); err != nil || len(g.Readings) != 2 || g.Readings[1].Status != view.ReadingWaiting {
		t.Errorf("Get offline = %+v, %v; want the note's reading and the one asked again, waiting", g, err)
	}
	// Asked again with the same ids: the same writes.
	if _, err := a.Moments.AddNote(note, "call the pharmacy"); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Moments.AskCareful(note, job); err != nil {
		t.Fatal(err)
	}

	page, err := a.Moments.Page("", 50)
	if err != nil || len(page.Moments) != 1 || page.Moments[0].Caption != "call about the prescription" ||
		!page.Moments[0].CarefulAsked || page.Moments[0].CarefulJobID != job || page.Moments[0].WaitsFor == "" {
		t.Fatalf("Page offline = %+v, %v", page, err)
	}
	ws, err := a.Outbox.Writes()
	if err != nil || len(ws) != 5 {
		t.Fatalf("Writes = %+v, %v; want the note, caption, keep, careful and again", ws, err)
	}
	if ws[1].Kind != string(outbox.WriteCaption) || ws[1].Text != "call about the prescription" || ws[2].Kind != string(outbox.WriteKeep) || ws[2].Text != "red door" || ws[0].State != "waiting" {
		t.Errorf("Writes = %+v", ws)
	}

	a.Shutdown() // Spark restarts
	link.set(false, true)
	a, sh := startApp(t, dir, nil)
	waitFor(t, "every write sent", delivered(a))

	for op, want := range map[string]int{api.OpMomentCreate: 1, api.OpMomentEdit: 1, api.OpPhraseKeep: 1, api.OpTurnStart: 3} {
		if got := remote.OpCount(t, op); got != want {
			t.Errorf("%d %s ops at the engine; want %d", got, op, want)
		}
	}
	// The careful readings come with the next sync of this computer's copy.
	var got view.Moment
	waitFor(t, "the note with its three readings", func() bool {
		got, err = a.Moments.Get(note)
		return err == nil && len(got.Readings) == 3
	})
	if got.Caption != "call about the prescription" || got.Pending || got.WaitsFor != "" {
		t.Errorf("Get after delivery = %+v, %v", got, err)
	}
	waitFor(t, "write and moment events", func() bool { return sh.count("write") >= 5 && sh.count("moment") >= 1 && sh.count("phrases") >= 1 })

	// Online, a write answers with the engine's view.
	link.set(false, false)
	mo, err = a.Moments.SetCaption(note, "done", captionShown(a, note))
	if err != nil || mo.Caption != "done" || mo.WaitsFor != "" || mo.Pending {
		t.Errorf("SetCaption online = %+v, %v", mo, err)
	}
}

// TestWrites_BadInputWritesNothing: a bad id or text is refused before
// anything is stored.
func TestWrites_BadInputWritesNothing(t *testing.T) {
	a, _ := startApp(t, t.TempDir(), nil)
	calls := map[string]error{}
	_, calls["note id"] = a.Moments.AddNote("not-an-id", "x")
	_, calls["job id"] = a.Moments.AskCareful(ulid.Make().String(), "bad id with spaces")
	_, calls["recall id"] = a.Phrases.Recall(strings.Repeat("r", 71))
	_, calls["taken_at"] = a.Moments.SetTakenAt(ulid.Make().String(), "yesterday")
	_, calls["phrase"] = a.Phrases.Keep("   ", "")
	codes := map[string]string{"taken_at": CodeBadTakenAt, "phrase": CodeNoWords}
	for what, err := range calls {
		want := cmp.Or(codes[what], api.CodeBadID)
		if ue := toUIError(err); ue == nil || ue.Code != want {
			t.Errorf("%s: %v; want %s", what, err, want)
		}
	}
	if ws, err := a.Outbox.Writes(); err != nil || len(ws) != 0 {
		t.Errorf("Writes = %+v, %v; want none", ws, err)
	}
}

// TestWrites_OnlineAnswerWithTheEngine: with the engine at hand each write
// binding answers with what the engine has, nothing left waiting.
func TestWrites_OnlineAnswerWithTheEngine(t *testing.T) {
	a, _ := startApp(t, t.TempDir(), nil)
	note := ulid.Make().String()
	// A note answers once stored (TestAddNote_AnswersAtOnceAndSendsBehind)
	// and is sent behind.
	mo, err := a.Moments.AddNote(note, "the red door")
	if err != nil || mo.Kind != api.KindNote {
		t.Fatalf("AddNote = %+v, %v", mo, err)
	}
	waitFor(t, "the note sent", delivered(a))
	if mo, err = a.Moments.SetTakenAt(note, "2024-05-01T09:30:00Z"); err != nil || mo.TakenAt != "2024-05-01T09:30:00Z" || mo.WaitsFor != "" {
		t.Errorf("SetTakenAt = %+v, %v", mo, err)
	}
	ph, err := a.Phrases.Keep("red door", note)
	if err != nil || ph.WaitsFor != "" || ph.ID != "keep:red door" {
		t.Fatalf("Keep = %+v, %v", ph, err)
	}
	r, err := a.Phrases.Recall(ulid.Make().String())
	if err != nil || r.WaitsFor != "" || r.Reading.ID == "" || r.MomentID == "" {
		t.Errorf("Recall = %+v, %v", r, err)
	}
	if ok, err := a.Phrases.Remove(ph.ID); err != nil || !ok {
		t.Errorf("Remove = %v, %v", ok, err)
	}
	if ps, err := a.Phrases.List(); err != nil || len(ps) != 0 {
		t.Errorf("List after Remove = %+v, %v", ps, err)
	}
	if ok, err := a.Moments.Delete(note); err != nil || !ok {
		t.Errorf("Delete = %v, %v", ok, err)
	}
	page, err := a.Moments.Page("", 50)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range page.Moments {
		if m.ID == note {
			t.Errorf("deleted note still listed: %+v", m)
		}
	}
	if ws, err := a.Outbox.Writes(); err != nil || len(ws) != 0 {
		t.Errorf("Writes = %+v, %v; want none left", ws, err)
	}
}

// A waiting write says what it waits for, the same as the moment and the
// toasts say; a parked one the engine's code, its text the detail; a sent
// one neither.
func TestWriteView_OneWaitingCode(t *testing.T) {
	for _, tc := range []struct {
		state                  outbox.State
		waitsFor, code, detail string
	}{
		{outbox.Pending, WaitsFamily, "", ""},
		{outbox.Parked, "", "caption_too_long", "too long"},
		{outbox.Done, "", "", ""},
	} {
		w := outbox.Write{ID: "w1", Kind: outbox.WriteCaption, State: tc.state, LastCode: "caption_too_long", LastError: "too long"}
		v := writeView(&w, WaitsFamily)
		if v.WaitsFor != tc.waitsFor || v.Code != tc.code || v.Detail != tc.detail {
			t.Errorf("writeView(%s) = waits for %q, code %q, detail %q; want %q, %q, %q", tc.state, v.WaitsFor, v.Code, v.Detail, tc.waitsFor, tc.code, tc.detail)
		}
	}
}

// TestAddNote_AnswersAtOnceAndSendsBehind: a note is safe on this computer
// as soon as the outbox has stored it, so the binding answers then, with
// the note waiting, never after waiting for the engine (issue 21, item
// 9); the drain sends it behind, once, and the window hears of it.
func TestAddNote_AnswersAtOnceAndSendsBehind(t *testing.T) {
	old := writeWait
	writeWait = 5 * time.Second // far longer than the answer may take
	t.Cleanup(func() { writeWait = old })
	for _, tc := range []struct {
		name string
		down bool
	}{{"engine away", true}, {"engine at hand", false}} {
		t.Run(tc.name, func(t *testing.T) {
			remote := enginetest.Start(t)
			link := newLinkProxy(t, remote.URL)
			a, sh := startApp(t, t.TempDir(), nil)
			if _, err := a.Settings.UseRemote(link.srv.URL, remote.Token); err != nil {
				t.Fatal(err)
			}
			link.set(tc.down, false)
			note := ulid.Make().String()
			start := time.Now()
			mo, err := a.Moments.AddNote(note, "call the pharmacy")
			took := time.Since(start)
			if err != nil || mo.ID != note || mo.Caption != "call the pharmacy" || !mo.Pending || mo.WaitsFor == "" {
				t.Fatalf("AddNote = %+v, %v; want the note, stored and waiting", mo, err)
			}
			if took > time.Second {
				t.Errorf("AddNote took %v; want it to answer once stored, not after waiting for the engine", took)
			}
			if ws, err := a.Outbox.Writes(); err != nil || len(ws) != 1 || ws[0].Kind != string(outbox.WriteNote) {
				t.Fatalf("Writes = %+v, %v; want the note stored", ws, err)
			}
			link.set(false, false)
			if ob, err := a.queue(); err == nil {
				ob.Kick()
			}
			waitFor(t, "the note sent", delivered(a))
			if got := remote.OpCount(t, api.OpMomentCreate); got != 1 {
				t.Errorf("%d moment.create ops at the engine; want 1", got)
			}
			waitFor(t, "the moment event of the note sent", func() bool { return sh.count("moment") >= 1 })
			if g, err := a.Moments.Get(note); err != nil || g.Pending || g.WaitsFor != "" {
				t.Errorf("Get after sending = %+v, %v; want the note, sent", g, err)
			}
		})
	}
}

// captionShown is the caption the window shows for moment id ("" for one it does
// not know): what a caption typed there is written from.
func captionShown(a *App, id string) string {
	m, _ := a.Moments.Get(id)
	return m.Caption
}
