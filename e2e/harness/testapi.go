package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/sparkfamily/spark/app"
	"github.com/sparkfamily/spark/e2e/internal/seed"
	"github.com/sparkfamily/spark/engine"
	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/auth"
	"github.com/sparkfamily/spark/engine/client"
	"github.com/sparkfamily/spark/engine/pippa/pippatest"
	"github.com/sparkfamily/spark/internal/sqlitedb"
)

// testAPI holds the test-only routes.
type testAPI struct {
	shell  *shell
	app    *app.App
	dir    string // the harness's temp folder
	data   string // the app's data folder
	pippa  string
	fake   *pippatest.Server
	logger *slog.Logger

	mu     sync.Mutex
	gen    int
	remote *app.LocalEngine
	addr   string // the family engine's address, fixed once prepared
	token  string
}

func (t *testAPI) routes(mux *http.ServeMux) {
	mux.HandleFunc("POST /test/dialog", t.dialog)
	mux.HandleFunc("POST /test/generate", t.generate)
	mux.HandleFunc("POST /test/remote/prepare", t.prepareRemote)
	mux.HandleFunc("POST /test/remote/start", t.startRemote)
	mux.HandleFunc("POST /test/remote/stop", func(w http.ResponseWriter, r *http.Request) {
		t.stopRemote()
		reply(w, map[string]bool{"stopped": true})
	})
	mux.HandleFunc("POST /test/seed", t.seed)
	mux.HandleFunc("POST /test/pippa", t.setPippa)
	mux.HandleFunc("POST /test/pippa/seat", t.seatPippa)
	mux.HandleFunc("POST /test/moment", t.moment)
	mux.HandleFunc("POST /test/elsewhere", t.elsewhere)
	mux.HandleFunc("POST /test/remote/member", t.memberToken)
	mux.HandleFunc("POST /test/leftover", t.leftover)
	mux.HandleFunc("GET /test/revealed", func(w http.ResponseWriter, r *http.Request) {
		t.shell.mu.Lock()
		defer t.shell.mu.Unlock()
		reply(w, t.shell.revealed)
	})
	mux.HandleFunc("GET /test/dialogs", func(w http.ResponseWriter, r *http.Request) {
		t.shell.mu.Lock()
		defer t.shell.mu.Unlock()
		reply(w, t.shell.asked)
	})
}

func reply(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

func fail(w http.ResponseWriter, err error) {
	http.Error(w, err.Error(), http.StatusInternalServerError)
}

// dialog queues what the next file or folder dialog answers.
func (t *testAPI) dialog(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Files  []string `json:"files"`
		Folder string   `json:"folder"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	t.shell.mu.Lock()
	if in.Files != nil {
		t.shell.files = append(t.shell.files, in.Files)
	}
	if in.Folder != "" {
		t.shell.folders = append(t.shell.folders, in.Folder)
	}
	t.shell.mu.Unlock()
	reply(w, map[string]bool{"queued": true})
}

// generate writes n new JPEG photos (each different) and returns their
// paths; big ones are noisy 12 MP files of several MB, portrait ones
// taller than wide.
func (t *testAPI) generate(w http.ResponseWriter, r *http.Request) {
	var in struct {
		N        int  `json:"n"`
		Big      bool `json:"big"`
		Portrait bool `json:"portrait"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.N < 1 || in.N > 1000 {
		http.Error(w, "give n between 1 and 1000", http.StatusBadRequest)
		return
	}
	dir := filepath.Join(t.dir, "photos")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fail(w, err)
		return
	}
	var paths []string
	for range in.N {
		t.mu.Lock()
		t.gen++
		n := t.gen
		t.mu.Unlock()
		p := filepath.Join(dir, fmt.Sprintf("garden-%03d.jpg", n))
		wd, ht, q := 1600, 1200, 85
		if in.Big {
			wd, ht, q = 4000, 3000, 97
		}
		if in.Portrait {
			wd, ht = ht, wd
		}
		if err := os.WriteFile(p, seed.Photo(n, wd, ht, q, in.Big), 0o644); err != nil {
			fail(w, err)
			return
		}
		paths = append(paths, p)
	}
	reply(w, map[string][]string{"paths": paths})
}

// prepareRemote makes the family engine's data folder and token and picks
// its port, without starting it: Settings can point at it while it is
// still unreachable.
func (t *testAPI) prepareRemote(w http.ResponseWriter, r *http.Request) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.addr == "" {
		eng, err := engine.Open(r.Context(), engine.Config{Dir: t.remoteDir(), Logger: t.logger})
		if err != nil {
			fail(w, err)
			return
		}
		tok, err := eng.Tokens().Add("family-e2e", auth.ScopeAdmin)
		eng.Close()
		if err != nil {
			fail(w, err)
			return
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			fail(w, err)
			return
		}
		t.addr = ln.Addr().String()
		ln.Close()
		t.token = tok
	}
	reply(w, map[string]string{"url": "http://" + t.addr, "token": t.token})
}

func (t *testAPI) remoteDir() string { return filepath.Join(t.dir, "family-engine") }

// startRemote starts the family engine on its prepared port (restarting it
// when it runs), optionally with a small media limit so uploads park.
func (t *testAPI) startRemote(w http.ResponseWriter, r *http.Request) {
	var in struct {
		MaxMediaSize int64 `json:"maxMediaSize"`
		NoPippa      bool  `json:"noPippa"` // a family engine nobody set Pippa up on
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	t.stopRemote()
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.addr == "" {
		http.Error(w, "prepare the family engine first", http.StatusConflict)
		return
	}
	seat := app.Pippa{URL: t.pippa, Model: "fake-pippa"}
	if in.NoPippa {
		seat = app.Pippa{}
	}
	le, err := app.StartLocalEngine(context.Background(), app.LocalConfig{
		Dir: t.remoteDir(), Addr: t.addr, Token: t.token, MaxMediaSize: in.MaxMediaSize,
		Pippa: seat, Logger: t.logger,
	})
	if err == nil && in.NoPippa {
		// A seat kept in its folder from an earlier start goes too.
		err = le.Engine.SetSeats(context.Background(), nil)
	}
	if err != nil {
		fail(w, err)
		return
	}
	t.remote = le
	reply(w, map[string]string{"url": le.URL})
}

func (t *testAPI) stopRemote() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.remote != nil {
		t.remote.Close()
		t.remote = nil
	}
}

// seed puts n photo moments (each with its own small copy record) straight
// into the app's own engine, for the performance figures.
func (t *testAPI) seed(w http.ResponseWriter, r *http.Request) {
	var in struct {
		N int `json:"n"`
		// Family seeds the family engine instead of the app's own.
		Family bool `json:"family"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.N < 1 || in.N > 100000 {
		http.Error(w, "give n between 1 and 100000", http.StatusBadRequest)
		return
	}
	var cl *client.Client
	var err error
	if in.Family {
		// The app's own engine may not run then (the app uses the family
		// engine): it is not looked for.
		t.mu.Lock()
		if t.remote == nil {
			err = fmt.Errorf("start the family engine first")
		} else {
			cl = client.New(t.remote.URL, t.remote.Token, nil)
		}
		t.mu.Unlock()
	} else {
		cl, err = t.ownEngine()
	}
	if err != nil {
		fail(w, err)
		return
	}
	err = seed.Moments(r.Context(), in.N, func(ctx context.Context, i int, thumb []byte) error {
		return seedOne(ctx, cl, thumb, seedCaption(i))
	})
	if err != nil {
		fail(w, err)
		return
	}
	reply(w, map[string]int{"seeded": in.N})
}

// seedWords make the seeded captions differ, so a search over them has
// something to sort: each caption holds two of them, and one moment in a
// thousand holds "zanzibar".
var seedWords = strings.Fields("letter bank pharmacy label garden kitchen recipe invoice parcel ticket " +
	"doctor appointment birthday card postcard receipt warranty manual timetable menu " +
	"seeds tomato roses bicycle window door cup teapot stamp envelope")

func seedCaption(i int) string {
	c := fmt.Sprintf("Seeded moment %d: %s and %s", i, seedWords[i%len(seedWords)], seedWords[(i*7+3)%len(seedWords)])
	if i%1000 == 999 {
		c += " from Zanzibar"
	}
	return c
}

func seedOne(ctx context.Context, cl *client.Client, thumb []byte, caption string) error {
	mid, cid := ulid.Make().String(), ulid.Make().String()
	if _, _, err := cl.CreateMoment(ctx, api.CreateMomentRequest{ID: mid, ClientRequestID: "seed:" + mid, Kind: api.KindPhoto, Caption: caption}); err != nil {
		return err
	}
	sum := sha256.Sum256(thumb)
	_, _, err := cl.PutMedia(ctx, client.PutMedia{ID: cid, MomentID: mid, Role: api.RoleCopy, ContentType: "image/jpeg",
		Body: bytes.NewReader(thumb), Size: int64(len(thumb)), SHA256: sum[:]})
	return err
}

// setPippa makes the fake Pippa slow ({"delayMs": 4000}), refuse
// ({"refuse": true}) or say other words in a careful reading
// ({"carefulReply": "..."}); {} puts it back.
func (t *testAPI) setPippa(w http.ResponseWriter, r *http.Request) {
	var in struct {
		DelayMs      int64  `json:"delayMs"`
		Refuse       bool   `json:"refuse"`
		CarefulReply string `json:"carefulReply"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	t.fake.SetDelay(time.Duration(in.DelayMs) * time.Millisecond)
	t.fake.SetRefuse(in.Refuse)
	carefulReply.Store(in.CarefulReply)
	reply(w, map[string]bool{"ok": true})
}

// seatPippa takes the fake Pippa from the app's own engine and its
// settings ({"seated": false}), as on a computer where nobody set Pippa up,
// or gives her back ({"seated": true}).
func (t *testAPI) seatPippa(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Seated bool `json:"seated"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if in.Seated {
		if _, err := t.app.Settings.SetPippa(app.Pippa{URL: t.pippa, Model: "fake-pippa"}); err != nil {
			fail(w, err)
			return
		}
		reply(w, map[string]bool{"seated": true})
		return
	}
	le := t.app.LocalEngine()
	if le == nil {
		http.Error(w, "the app is not on its own engine", http.StatusConflict)
		return
	}
	if _, err := t.app.Settings.SetPippa(app.Pippa{}); err != nil {
		fail(w, err)
		return
	}
	if err := le.Engine.SetSeats(r.Context(), nil); err != nil {
		fail(w, err)
		return
	}
	// The address of the fake Pippa, for Dad to type in Settings.
	reply(w, map[string]any{"seated": false, "url": t.pippa, "model": "fake-pippa"})
}

// ownEngine is a client of the app's own engine, from the address and
// token the app wrote in its data folder.
func (t *testAPI) ownEngine() (*client.Client, error) {
	addr, err := os.ReadFile(filepath.Join(t.data, "engine-address"))
	if err != nil {
		return nil, err
	}
	var prefs struct {
		LocalToken string `json:"local_token"`
	}
	b, err := os.ReadFile(filepath.Join(t.data, "settings.json"))
	if err == nil {
		err = json.Unmarshal(b, &prefs)
	}
	if err != nil {
		return nil, err
	}
	return client.New(strings.TrimSpace(string(addr)), prefs.LocalToken, nil), nil
}

// memberToken mints a device token of a family member in the running
// family engine: {"name": "dads-laptop", "member": "dad"}; it answers
// {"token"}. The window then uses the family engine as that member.
func (t *testAPI) memberToken(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Name   string `json:"name"`
		Member string `json:"member"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.remote == nil {
		http.Error(w, "start the family engine first", http.StatusConflict)
		return
	}
	tok, err := t.remote.Engine.Tokens().AddMember(in.Name, in.Member, auth.ScopeDevice)
	if err != nil {
		fail(w, err)
		return
	}
	reply(w, map[string]string{"token": tok})
}

// familyEngine is a client of the running family engine, with its admin
// token.
func (t *testAPI) familyEngine() (*client.Client, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.remote == nil {
		return nil, fmt.Errorf("start the family engine first")
	}
	return client.New(t.remote.URL, t.remote.Token, nil), nil
}

// moment makes one moment in the app's own engine, as another client
// would: {"kind": "photo", "caption": "...", "takenAt": RFC 3339 or "",
// "read": true} (a photo gets a small copy; read starts Pippa's reading).
// With "family": true it goes to the family engine instead, and with
// "member": "mum" it is that family member's (written with the admin
// token for them, as push does); "phrase": "..." then keeps those words
// of it as theirs too. It answers {"id"}.
func (t *testAPI) moment(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Kind    string `json:"kind"`
		Caption string `json:"caption"`
		TakenAt string `json:"takenAt"`
		Read    bool   `json:"read"`
		Family  bool   `json:"family"`
		Member  string `json:"member"`
		Phrase  string `json:"phrase"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var cl *client.Client
	var err error
	if in.Family {
		cl, err = t.familyEngine()
	} else {
		cl, err = t.ownEngine()
	}
	if err != nil {
		fail(w, err)
		return
	}
	req := api.CreateMomentRequest{ID: ulid.Make().String(), Kind: in.Kind, Caption: in.Caption}
	req.ClientRequestID = "test:" + req.ID
	if in.TakenAt != "" {
		at, err := time.Parse(time.RFC3339, in.TakenAt)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		req.TakenAt = &at
	}
	ctx := r.Context()
	if in.Member != "" {
		ctx = client.WithMember(ctx, in.Member)
	}
	if _, _, err := cl.CreateMoment(ctx, req); err != nil {
		fail(w, err)
		return
	}
	if in.Kind == api.KindPhoto {
		t.mu.Lock()
		t.gen++
		n := t.gen
		t.mu.Unlock()
		thumb := seed.Photo(2000+n, 480, 360, 85, false)
		sum := sha256.Sum256(thumb)
		if _, _, err := cl.PutMedia(ctx, client.PutMedia{ID: ulid.Make().String(), MomentID: req.ID, Role: api.RoleCopy, ContentType: "image/jpeg",
			Body: bytes.NewReader(thumb), Size: int64(len(thumb)), SHA256: sum[:]}); err != nil {
			fail(w, err)
			return
		}
		if in.Read {
			if _, _, err := cl.StartTurn(ctx, req.ID, api.StartTurnRequest{ClientRequestID: "test-read:" + req.ID, Mode: api.ModePractical}); err != nil {
				fail(w, err)
				return
			}
		}
	}
	if in.Phrase != "" {
		if _, _, err := cl.KeepPhrase(ctx, api.KeepPhraseRequest{Text: in.Phrase, MomentID: req.ID}); err != nil {
			fail(w, err)
			return
		}
	}
	reply(w, map[string]string{"id": req.ID})
}

// elsewhere writes to a moment as another of the family's computers would,
// straight to the engine the app uses (the family engine with "family"):
// {"id", "caption", "base", "by"} an edit typed there from base (by, the
// computer's name), or {"id", "delete": true} a delete.
func (t *testAPI) elsewhere(w http.ResponseWriter, r *http.Request) {
	var in struct {
		ID      string `json:"id"`
		Caption string `json:"caption"`
		Base    string `json:"base"`
		By      string `json:"by"`
		Delete  bool   `json:"delete"`
		Family  bool   `json:"family"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	cl, err := t.ownEngine()
	if in.Family {
		cl, err = t.familyEngine()
	}
	if err != nil {
		fail(w, err)
		return
	}
	if in.Delete {
		_, err = cl.DeleteMoment(r.Context(), in.ID)
	} else {
		_, _, err = cl.EditMoment(r.Context(), in.ID, api.EditMomentRequest{Caption: &in.Caption, BaseCaption: &in.Base, WrittenBy: in.By})
	}
	if err != nil {
		fail(w, err)
		return
	}
	reply(w, map[string]bool{"ok": true})
}

// leftover makes a folder of the app's outbox that could not be removed,
// as a refused removal leaves it (on Windows, a photo's copy held open by
// antivirus): the folder, with a copy.jpg in it, and its row in the
// outbox's removals table, as app/leftovers_test.go makes one. {"reason":
// "delivered" or "discarded"}; it answers {"path"} of the folder. The
// outbox retries it after a delivery a minute or more after its last
// retry, and forgets it once removed.
func (t *testAPI) leftover(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Reason string `json:"reason"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil || (in.Reason != "delivered" && in.Reason != "discarded") {
		http.Error(w, `give {"reason": "delivered" or "discarded"}`, http.StatusBadRequest)
		return
	}
	id := ulid.Make().String()
	ob := filepath.Join(t.data, "outbox")
	dir := filepath.Join(ob, "files", id)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		fail(w, err)
		return
	}
	if err := os.WriteFile(filepath.Join(dir, "copy.jpg"), seed.Photo(3000, 480, 360, 85, false), 0o600); err != nil {
		fail(w, err)
		return
	}
	db, err := sql.Open("sqlite", sqlitedb.DSN(filepath.Join(ob, "outbox.db"), url.Values{"_pragma": {"busy_timeout(10000)"}}))
	if err != nil {
		fail(w, err)
		return
	}
	defer db.Close()
	if _, err := db.ExecContext(r.Context(), `INSERT INTO removals (path, entry_id, reason, since, attempts, last_error) VALUES (?, ?, ?, ?, 1, ?)`,
		"files/"+id, id, in.Reason, time.Now().UTC().Format(time.RFC3339Nano),
		"remove copy.jpg: The process cannot access the file because it is being used by another process."); err != nil {
		fail(w, err)
		return
	}
	reply(w, map[string]string{"path": dir})
}
