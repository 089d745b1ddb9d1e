package outbox

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/client"
	"github.com/sparkfamily/spark/engine/enginetest"
)

// TestOpen_MigratesV1 opens testdata/outbox-v1, an outbox written by the
// Spark of before writes (schema version 1: one delivered, one waiting and
// one parked photo), brings it up to date, finds every entry intact and
// keeps writes in it.
func TestOpen_MigratesV1(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "outbox")
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("testdata", "outbox-v1"))); err != nil {
		t.Fatal(err)
	}
	if v := userVersion(t, filepath.Join(dir, "outbox.db")); v != 1 {
		t.Fatalf("testdata user_version = %d; want 1", v)
	}
	o := openTest(t, dir, testOptions())
	byState := map[State]Entry{}
	for _, e := range entries(t, o) {
		byState[e.State] = e
	}
	done, waiting, parked := byState[Done], byState[Pending], byState[Parked]
	if done.DeliveredAt == nil || done.StepsDone != 4 || waiting.StepsDone != 1 || waiting.LastCode != api.CodeUnavailable ||
		parked.LastCode != "too_large" || parked.SHA256 == "" || waiting.TurnRequestID == "" {
		t.Fatalf("entries after the upgrade = %+v", byState)
	}
	for _, e := range []Entry{waiting, parked} {
		if _, err := o.SmallCopyPath(e.ID); err != nil {
			t.Errorf("small copy of %s: %v", e.State, err)
		}
	}
	if c, err := o.Counts(ctx); err != nil || c != (Counts{Pending: 1, Parked: 1, Done: 1}) {
		t.Errorf("counts = %+v, %v", c, err)
	}
	if _, err := o.AddWrite(ctx, NewCaption(waiting.MomentID, "the letter", nil)); err != nil {
		t.Fatalf("AddWrite in the upgraded outbox: %v", err)
	}
	o.Close()
	if v := userVersion(t, filepath.Join(dir, "outbox.db")); v != SchemaVersion {
		t.Errorf("user_version = %d; want %d", v, SchemaVersion)
	}
	o = openTest(t, dir, testOptions())
	ws, err := o.UnsentWrites(ctx)
	if err != nil || len(ws) != 1 || ws[0].Text != "the letter" {
		t.Errorf("writes after reopening = %+v, %v", ws, err)
	}
}

// TestNewNote_TurnRequestIDIsRandom: a note's turn request id is not
// derived from its moment id (issue 25: "note:<id>:turn" let a script that
// read /v1/ops start the turn first), and a note already in the outbox
// keeps the one it has.
func TestNewNote_TurnRequestIDIsRandom(t *testing.T) {
	note := ulid.Make().String()
	a, b := NewNote(note, "x"), NewNote(note, "x")
	for _, w := range []Write{a, b} {
		if strings.Contains(w.TurnRequestID, note) || w.TurnRequestID == "note:"+note+":turn" {
			t.Errorf("turn request id %q derives from the moment id %s", w.TurnRequestID, note)
		}
		if _, err := ulid.ParseStrict(w.TurnRequestID); err != nil {
			t.Errorf("turn request id %q is not a ULID: %v", w.TurnRequestID, err)
		}
	}
	if a.TurnRequestID == b.TurnRequestID {
		t.Errorf("two notes got the same turn request id %q", a.TurnRequestID)
	}

	ctx := context.Background()
	o := openTest(t, "", testOptions())
	old := NewNote(note, "call the pharmacy")
	old.TurnRequestID = "note:" + note + ":turn" // as the outbox stored it before
	first, err := o.AddWrite(ctx, old)
	if err != nil {
		t.Fatal(err)
	}
	again, err := o.AddWrite(ctx, NewNote(note, "call the pharmacy"))
	if err != nil || again.Seq != first.Seq || again.TurnRequestID != old.TurnRequestID {
		t.Fatalf("the note again = %+v, %v; want the stored one with turn request id %q", again, err, old.TurnRequestID)
	}
}

// TestAddWrite_OncePerIntent: the same id twice is one write; unsent
// caption edits of one moment merge into the newest text; an edit after
// another write of the moment does not overtake it.
func TestAddWrite_OncePerIntent(t *testing.T) {
	ctx := context.Background()
	o := openTest(t, "", testOptions())
	m := ulid.Make().String()
	note := ulid.Make().String()
	a, err := o.AddWrite(ctx, NewNote(note, "call the pharmacy"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := o.AddWrite(ctx, NewNote(note, "call the pharmacy"))
	if err != nil || b.Seq != a.Seq || b.RequestID != "note:"+note {
		t.Fatalf("second AddWrite of one note = %+v, %v; want the first %+v", b, err, a)
	}
	// A photo read twice before its words went (or on a second start of
	// the reader) is one write: the first reading.
	w1, err := o.AddWrite(ctx, NewWords(m, "Severn Water", "eng"))
	if err != nil {
		t.Fatal(err)
	}
	if w2, err := o.AddWrite(ctx, NewWords(m, "Severn Wafer", "eng")); err != nil || w2.Seq != w1.Seq || w2.Text != "Severn Water" {
		t.Fatalf("a second reading of one photo = %+v, %v; want the first %+v", w2, err, w1)
	}
	if _, err := o.AddWrite(ctx, NewWords(m, "x", "../eng")); api.ErrorCode(err) != api.CodeBadWords {
		t.Fatalf("words with a bad language: %v; want bad_words before anything is stored", err)
	}
	c1, _ := o.AddWrite(ctx, NewCaption(m, "one", nil))
	c2, _ := o.AddWrite(ctx, NewCaption(m, "two", nil))
	if c2.ID != c1.ID || c2.Text != "two" {
		t.Errorf("unsent captions not merged: %+v then %+v", c1, c2)
	}
	if _, err := o.AddWrite(ctx, NewDelete(m)); err != nil {
		t.Fatal(err)
	}
	c3, _ := o.AddWrite(ctx, NewCaption(m, "three", nil))
	if c3.ID == c1.ID {
		t.Errorf("a caption after a delete merged into the one before it")
	}
	k1, _ := NewKeep("red door", "")
	k2, _ := NewKeep("Red  door", "")
	first, _ := o.AddWrite(ctx, k1)
	if again, err := o.AddWrite(ctx, k2); err != nil || again.ID != first.ID {
		t.Errorf("Keep pressed twice while waiting = %+v, %v; want the first keep", again, err)
	}
	ws, err := o.UnsentWrites(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range ws {
		got = append(got, w.Describe())
	}
	if s := strings.Join(got, ", "); s != `note "call the pharmacy", words "Severn Water", caption "two", delete, caption "three", keep "red door"` {
		t.Errorf("unsent writes = %s", s)
	}
}

// deadURL is an address on 127.0.0.1 where nothing listens.
func deadURL(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	u := "http://" + l.Addr().String()
	l.Close()
	return u
}

// runDrain runs o's drain until the test ends or stop is called.
func runDrain(t *testing.T, o *Outbox) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		o.Run(ctx)
	}()
	var once sync.Once
	stop = func() { once.Do(func() { cancel(); <-done }) }
	t.Cleanup(stop)
	return stop
}

// loseFirstReply is a fault rule: the first request of each route that
// writes reaches the engine, which commits it, and its reply is lost.
func loseFirstReply() func(*http.Request) fault {
	seen := map[string]bool{}
	return func(r *http.Request) fault {
		if r.Method == http.MethodGet {
			return fault{}
		}
		k := route(r)
		if seen[k] {
			return fault{}
		}
		seen[k] = true
		return fault{Kind: dropReply}
	}
}

type writeCase struct {
	name string
	// setup prepares the engine (through cl) and returns the write.
	setup func(t *testing.T, cl *client.Client) Write
	// ops are the op counts the write adds to the engine's log.
	ops map[string]int
	// check looks at the engine after the write arrived.
	check func(t *testing.T, cl *client.Client, w *Write)
}

func noteOn(t *testing.T, cl *client.Client, caption string) string {
	id := ulid.Make().String()
	if _, _, err := cl.CreateMoment(context.Background(), api.CreateMomentRequest{ID: id, ClientRequestID: "setup:" + id, Kind: api.KindNote, Caption: caption}); err != nil {
		t.Fatal(err)
	}
	return id
}

func keepOn(t *testing.T, cl *client.Client, text string) {
	if _, _, err := cl.KeepPhrase(context.Background(), api.KeepPhraseRequest{Text: text}); err != nil {
		t.Fatal(err)
	}
}

func writeCases() []writeCase {
	ctx := context.Background()
	momentOf := func(t *testing.T, cl *client.Client, id string) *api.Moment {
		m, err := cl.Moment(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	return []writeCase{
		{"note", func(t *testing.T, cl *client.Client) Write { return NewNote(ulid.Make().String(), "call the pharmacy") },
			map[string]int{api.OpMomentCreate: 1, api.OpTurnStart: 1},
			func(t *testing.T, cl *client.Client, w *Write) {
				m := momentOf(t, cl, w.MomentID)
				if m.Kind != api.KindNote || m.Caption != "call the pharmacy" || len(m.Turns) != 1 || m.Turns[0].Mode != api.ModePractical {
					t.Errorf("note at the engine = %+v", m)
				}
			}},
		{"caption", func(t *testing.T, cl *client.Client) Write {
			return NewCaption(noteOn(t, cl, "old"), "letter from the council", nil)
		},
			map[string]int{api.OpMomentEdit: 1},
			func(t *testing.T, cl *client.Client, w *Write) {
				if m := momentOf(t, cl, w.MomentID); m.Caption != "letter from the council" {
					t.Errorf("caption = %q", m.Caption)
				}
			}},
		{"taken_at", func(t *testing.T, cl *client.Client) Write {
			return NewTakenAt(noteOn(t, cl, "x"), time.Date(2024, 5, 1, 9, 30, 0, 0, time.UTC))
		}, map[string]int{api.OpMomentEdit: 1},
			func(t *testing.T, cl *client.Client, w *Write) {
				if m := momentOf(t, cl, w.MomentID); m.TakenAt == nil || !m.TakenAt.Equal(time.Date(2024, 5, 1, 9, 30, 0, 0, time.UTC)) {
					t.Errorf("taken_at = %v", m.TakenAt)
				}
			}},
		{"delete", func(t *testing.T, cl *client.Client) Write { return NewDelete(noteOn(t, cl, "x")) },
			map[string]int{api.OpMomentDelete: 1},
			func(t *testing.T, cl *client.Client, w *Write) {
				if m := momentOf(t, cl, w.MomentID); m.DeletedAt == nil {
					t.Errorf("moment not deleted")
				}
			}},
		{"dismiss", func(t *testing.T, cl *client.Client) Write {
			id := noteOn(t, cl, "water bill")
			base := "water bill"
			for _, c := range []string{"gas bill", "phone bill"} {
				if _, _, err := cl.EditMoment(ctx, id, api.EditMomentRequest{Caption: &c, BaseCaption: &base}); err != nil {
					t.Fatal(err)
				}
			}
			if m := momentOf(t, cl, id); len(m.Alternatives) != 1 {
				t.Fatalf("setup: alternatives = %+v", m.Alternatives)
			}
			return NewDismiss(id, "gas bill")
		}, map[string]int{api.OpMomentEdit: 1},
			func(t *testing.T, cl *client.Client, w *Write) {
				if m := momentOf(t, cl, w.MomentID); len(m.Alternatives) != 0 || m.Caption != "phone bill" {
					t.Errorf("after dismiss: %q, %+v", m.Caption, m.Alternatives)
				}
			}},
		{"words", func(t *testing.T, cl *client.Client) Write {
			return NewWords(noteOn(t, cl, "a letter"), "Severn Water\nRD/7731/Q", "eng")
		}, map[string]int{api.OpMomentWords: 1},
			func(t *testing.T, cl *client.Client, w *Write) {
				if m := momentOf(t, cl, w.MomentID); m.Words == nil || m.Words.Text != "Severn Water\nRD/7731/Q" || m.Words.Lang != "eng" {
					t.Errorf("words at the engine = %+v", m.Words)
				}
			}},
		{"keep", func(t *testing.T, cl *client.Client) Write {
			w, err := NewKeep("red door", noteOn(t, cl, "x"))
			if err != nil {
				t.Fatal(err)
			}
			return w
		}, map[string]int{api.OpPhraseKeep: 1},
			func(t *testing.T, cl *client.Client, w *Write) {
				ps, err := cl.Phrases(ctx)
				if err != nil || len(ps) != 1 || ps[0].Text != "red door" {
					t.Errorf("phrases = %+v, %v", ps, err)
				}
			}},
		{"unkeep", func(t *testing.T, cl *client.Client) Write {
			keepOn(t, cl, "red door")
			return NewUnkeep("keep:red door")
		}, map[string]int{api.OpPhraseUnkeep: 1},
			func(t *testing.T, cl *client.Client, w *Write) {
				if ps, err := cl.Phrases(ctx); err != nil || len(ps) != 0 {
					t.Errorf("phrases = %+v, %v", ps, err)
				}
			}},
		{"careful", func(t *testing.T, cl *client.Client) Write {
			return NewCareful(noteOn(t, cl, "x"), ulid.Make().String())
		},
			map[string]int{api.OpTurnStart: 1}, // one brain seat: one turn
			func(t *testing.T, cl *client.Client, w *Write) {
				m := momentOf(t, cl, w.MomentID)
				if len(m.Turns) != 1 || m.Turns[0].ClientRequestID != w.ID+":0" {
					t.Errorf("job turns = %+v", m.Turns)
				}
			}},
		{"again", func(t *testing.T, cl *client.Client) Write { return NewAgain(noteOn(t, cl, "x"), ulid.Make().String()) },
			map[string]int{api.OpTurnStart: 1},
			func(t *testing.T, cl *client.Client, w *Write) {
				if m := momentOf(t, cl, w.MomentID); len(m.Turns) != 1 || m.Turns[0].ClientRequestID != w.ID {
					t.Errorf("turns = %+v", m.Turns)
				}
			}},
		{"recall", func(t *testing.T, cl *client.Client) Write {
			keepOn(t, cl, "red door")
			return NewRecall(ulid.Make().String())
		}, map[string]int{api.OpMomentCreate: 1, api.OpTurnStart: 1},
			func(t *testing.T, cl *client.Client, w *Write) {
				ms, _, err := cl.Moments(ctx, 10, "")
				var recalls int
				for _, m := range ms {
					if m.Kind == api.KindRecall {
						recalls++
					}
				}
				if err != nil || recalls != 1 {
					t.Errorf("%d recall moments (%v); want 1", recalls, err)
				}
			}},
	}
}

// opCounts counts the engine's ops of the kinds that matter here.
func opCounts(t *testing.T, eng *enginetest.Engine) map[string]int {
	out := map[string]int{}
	for _, op := range []string{api.OpMomentCreate, api.OpMomentEdit, api.OpMomentDelete, api.OpTurnStart, api.OpPhraseKeep, api.OpPhraseUnkeep, api.OpMomentWords} {
		out[op] = eng.OpCount(t, op)
	}
	return out
}

// TestWrites_ExactlyOnceAcrossRestart is the proof for each kind of
// write: made with the engine unreachable, it waits; the outbox is closed
// and opened again (Spark restarted); the engine is reached through a
// proxy that loses the first reply of each request after the engine
// committed it; the write arrives exactly once.
func TestWrites_ExactlyOnceAcrossRestart(t *testing.T) {
	for _, tc := range writeCases() {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			eng := enginetest.Start(t)
			cl := client.New(eng.URL, eng.Token, eng.Client())
			w := tc.setup(t, cl)
			before := opCounts(t, eng)

			dir := t.TempDir()
			o, err := Open(ctx, dir, testOptions())
			if err != nil {
				t.Fatal(err)
			}
			o.SetTarget(Target{URL: deadURL(t), Token: eng.Token})
			stop := runDrain(t, o)
			added, err := o.AddWrite(ctx, w)
			if err != nil {
				t.Fatal(err)
			}
			waitFor(t, 10*time.Second, "a failed try", func() bool {
				got, err := o.Write(ctx, added.ID)
				return err == nil && got.Attempts > 0 && got.LastCode == CodeNetwork
			})
			stop()
			o.Close()

			p := newFaultProxy(t, eng.URL, loseFirstReply())
			o = openTest(t, dir, testOptions())
			o.SetTarget(Target{URL: p.URL(), Token: eng.Token})
			runDrain(t, o)
			var got *Write
			waitFor(t, 20*time.Second, "the write to be sent", func() bool {
				got, err = o.Write(ctx, added.ID)
				return err == nil && got.State != Pending
			})
			if got.State != Done || got.SentAt == nil || len(got.Result) == 0 {
				t.Fatalf("write = %+v; want it sent", got)
			}
			after := opCounts(t, eng)
			for op, n := range after {
				if n-before[op] != tc.ops[op] {
					t.Errorf("%d new %s ops; want %d", n-before[op], op, tc.ops[op])
				}
			}
			tc.check(t, cl, got)
			if len(p.requests()) < 2 {
				t.Errorf("proxy saw %v; want a lost reply and a repeat", p.requests())
			}
		})
	}
}

// TestWrites_AfterTheirMomentsCreate: an edit of a photo whose create is
// still in the outbox goes after it, and a note's caption edit after the
// note; writes go in the order Dad made them.
func TestWrites_AfterTheirMomentsCreate(t *testing.T) {
	ctx := context.Background()
	eng := enginetest.Start(t)
	o := openTest(t, "", testOptions())
	res := mustCapture(t, o, writePhoto(t, t.TempDir(), "door.jpg", 7))
	photo := res[0].Entry.MomentID
	note := ulid.Make().String()
	for _, w := range []Write{NewCaption(photo, "the red door", nil), NewNote(note, "first"), NewCaption(note, "second", nil)} {
		if _, err := o.AddWrite(ctx, w); err != nil {
			t.Fatal(err)
		}
	}
	var order []string
	var mu sync.Mutex
	p := newFaultProxy(t, eng.URL, func(r *http.Request) fault {
		mu.Lock()
		order = append(order, route(r))
		mu.Unlock()
		return fault{}
	})
	o.SetTarget(Target{URL: p.URL(), Token: eng.Token})
	runDrain(t, o)
	waitFor(t, 20*time.Second, "every write sent", func() bool {
		st, err := o.Status(ctx)
		return err == nil && len(st.Writes) == 0
	})
	cl := client.New(eng.URL, eng.Token, eng.Client())
	for id, want := range map[string]string{photo: "the red door", note: "second"} {
		m, err := cl.Moment(ctx, id)
		if err != nil || m.Caption != want {
			t.Errorf("moment %s = %+v, %v; want caption %q", id, m, err, want)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	// The photo's create comes before its PATCH.
	create, patch := -1, -1
	for i, r := range order {
		if r == StepCreate && create < 0 {
			create = i
		}
		if r == "PATCH /v1/moments/"+photo {
			patch = i
		}
	}
	if create < 0 || patch < create {
		t.Errorf("requests %v: the photo's caption went before its create", order)
	}
}

// TestWrites_ParkedRetryDiscard: a write the engine refuses is parked with
// its words; Retry sends it again, Discard drops it (the one Retry and
// Discard of the queue, as for photos).
func TestWrites_ParkedRetryDiscard(t *testing.T) {
	ctx := context.Background()
	eng := enginetest.Start(t)
	o := openTest(t, "", testOptions())
	o.SetTarget(Target{URL: eng.URL, Token: eng.Token})
	runDrain(t, o)
	missing := ulid.Make().String()
	w, err := o.AddWrite(ctx, NewCaption(missing, "nobody", nil))
	if err != nil {
		t.Fatal(err)
	}
	got, err := o.WaitWrite(ctx, w.ID)
	if err != nil || got.State != Parked || got.LastError == "" {
		t.Fatalf("write to a moment the engine never saw = %+v, %v; want parked with the engine's words", got, err)
	}
	// The engine gets the moment; Retry sends the caption.
	cl := client.New(eng.URL, eng.Token, eng.Client())
	if _, _, err := cl.CreateMoment(ctx, api.CreateMomentRequest{ID: missing, Kind: api.KindNote, Caption: "x"}); err != nil {
		t.Fatal(err)
	}
	if err := o.Retry(ctx, w.ID); err != nil {
		t.Fatal(err)
	}
	if got, err := o.WaitWrite(ctx, w.ID); err != nil || got.State != Done {
		t.Fatalf("retried write = %+v, %v", got, err)
	}
	w2, _ := o.AddWrite(ctx, NewDelete(ulid.Make().String()))
	if got, _ := o.WaitWrite(ctx, w2.ID); got.State != Parked {
		t.Fatalf("delete of an unknown moment = %+v", got)
	}
	if _, err := o.Discard(ctx, w2.ID, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := o.Write(ctx, w2.ID); err == nil {
		t.Errorf("discarded write still there")
	}
	if _, err := o.Discard(ctx, w.ID, ""); err == nil {
		t.Errorf("Discard of a sent write: no error")
	}
}

// TestWrites_CaptionMergedWhileSending: a newer caption merged into the
// unsent one while the drain is sending the older text is sent after it:
// the engine ends with the newest text, never the older one.
func TestWrites_CaptionMergedWhileSending(t *testing.T) {
	ctx := context.Background()
	eng := enginetest.Start(t)
	cl := client.New(eng.URL, eng.Token, eng.Client())
	m := noteOn(t, cl, "old")
	arrived, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	p := newFaultProxy(t, eng.URL, nil)
	held := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPatch {
			once.Do(func() {
				close(arrived)
				<-release
			})
		}
		p.ServeHTTP(w, r)
	})
	srv := httptestServer(t, held)
	o := openTest(t, "", testOptions())
	o.SetTarget(Target{URL: srv, Token: eng.Token})
	runDrain(t, o)
	first, err := o.AddWrite(ctx, NewCaption(m, "first", nil))
	if err != nil {
		t.Fatal(err)
	}
	<-arrived
	second, err := o.AddWrite(ctx, NewCaption(m, "second", nil))
	if err != nil || second.ID != first.ID {
		t.Fatalf("second caption = %+v, %v; want it merged into the unsent first", second, err)
	}
	close(release)
	waitFor(t, 20*time.Second, "the caption sent", func() bool {
		w, err := o.Write(ctx, first.ID)
		return err == nil && w.State == Done
	})
	got, err := cl.Moment(ctx, m)
	if err != nil || got.Caption != "second" {
		t.Errorf("caption at the engine = %q, %v; want the newest, second", got.Caption, err)
	}
	if n := eng.OpCount(t, api.OpMomentEdit); n != 2 {
		t.Errorf("%d moment.edit ops; want first then second", n)
	}
}

// httptestServer serves h on 127.0.0.1 until the test ends.
func httptestServer(t *testing.T, h http.Handler) string {
	srv := httptest.NewServer(h)
	t.Cleanup(func() { srv.CloseClientConnections(); srv.Close() })
	return srv.URL
}

// TestAddWrite_CaptionTooLong: a caption or a note longer than the engine
// takes is refused with api.CheckCaption's error before anything is
// stored; one at the limit is kept.
func TestAddWrite_CaptionTooLong(t *testing.T) {
	ctx := context.Background()
	o := openTest(t, "", testOptions())
	m := ulid.Make().String()
	long := strings.Repeat("é", api.MaxCaptionBytes/2) + "!"
	for _, w := range []Write{NewCaption(m, long, nil), NewNote(ulid.Make().String(), long)} {
		got, err := o.AddWrite(ctx, w)
		if api.ErrorCode(err) != api.CodeCaptionTooLong || got != nil {
			t.Errorf("AddWrite of a %s of %d bytes = %v, %v; want %s", w.Kind, len(long), got != nil, err, api.CodeCaptionTooLong)
		}
	}
	// An unsent caption is not replaced by a refused one either.
	if _, err := o.AddWrite(ctx, NewCaption(m, "the letter", nil)); err != nil {
		t.Fatal(err)
	}
	o.AddWrite(ctx, NewCaption(m, long, nil))
	ws, err := o.UnsentWrites(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(ws) != 1 || ws[0].Text != "the letter" {
		var got []string
		for _, w := range ws {
			got = append(got, fmt.Sprintf("%s of %d bytes", w.Kind, len(w.Text)))
		}
		t.Errorf("unsent writes after refusals: %v; want only the caption \"the letter\"", got)
	}
	if _, err := o.AddWrite(ctx, NewNote(ulid.Make().String(), strings.Repeat("a", api.MaxCaptionBytes))); err != nil {
		t.Errorf("AddWrite of a note of exactly %d bytes: %v", api.MaxCaptionBytes, err)
	}
}

// TestWrites_CountsByKind: the writes are counted per kind and state (in
// Status, beside the photos).
func TestWrites_CountsByKind(t *testing.T) {
	ctx := context.Background()
	o := openTest(t, "", testOptions())
	note := ulid.Make().String()
	for _, w := range []Write{NewNote(note, "first"), NewNote(ulid.Make().String(), "second"), NewCaption(note, "a caption", nil)} {
		if _, err := o.AddWrite(ctx, w); err != nil {
			t.Fatal(err)
		}
	}
	st, err := o.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := st.Counts
	want := KindCounts{WriteNote: {Pending: 2}, WriteCaption: {Pending: 1}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Status().Counts = %v, want %v", got, want)
	}
}

// TestNextWrite_RecallWaitsForEarlierKeeps: a quick recall is made of the
// phrases kept, so it is never sent before a phrase kept (or removed)
// earlier that still waits, even when that write's next try comes later
// than the recall's: sent first, the recall was refused for good ("no
// phrase is kept yet") and parked.
func TestNextWrite_RecallWaitsForEarlierKeeps(t *testing.T) {
	ctx := context.Background()
	o := openTest(t, "", testOptions())
	keep, err := NewKeep("the red door", "")
	if err != nil {
		t.Fatal(err)
	}
	k, err := o.AddWrite(ctx, keep)
	if err != nil {
		t.Fatal(err)
	}
	r, err := o.AddWrite(ctx, NewRecall(ulid.Make().String()))
	if err != nil {
		t.Fatal(err)
	}
	// The keep failed once (the engine was away) and waits for its next
	// try, which comes after the recall's.
	later := o.opts.Now().Add(time.Hour).UnixMilli()
	if _, err := o.db.ExecContext(ctx, "UPDATE queue SET next_try = ?, attempts = 1 WHERE id = ?", later, k.ID); err != nil {
		t.Fatal(err)
	}
	if w, err := o.nextWrite(ctx); err != nil || w != nil {
		t.Fatalf("nextWrite = %+v, %v; want nothing before the keep's next try", w, err)
	}
	if _, err := o.db.ExecContext(ctx, "UPDATE queue SET next_try = 0 WHERE id = ?", k.ID); err != nil {
		t.Fatal(err)
	}
	if w, err := o.nextWrite(ctx); err != nil || w == nil || w.ID != k.ID {
		t.Fatalf("nextWrite = %+v, %v; want the keep first", w, err)
	}
	// Once the keep is parked for good, the recall goes on its own (the
	// engine may hold other phrases).
	if _, err := o.db.ExecContext(ctx, "UPDATE queue SET state = 'parked' WHERE id = ?", k.ID); err != nil {
		t.Fatal(err)
	}
	if w, err := o.nextWrite(ctx); err != nil || w == nil || w.ID != r.ID {
		t.Fatalf("nextWrite = %+v, %v; want the recall once the keep is parked", w, err)
	}
}

// TestWrites_DiscardedPhotoTakesItsWords: the words read in a photo
// before it was sent (issue 37: read offline from its small copy) wait
// behind its capture; the photo discarded before the engine ever had it,
// they go with it (no moment to keep them, and Dad never wrote them: left,
// they would be turned down, a change he did not make). What Dad wrote
// of it himself, a caption, stays for him to see.
func TestWrites_DiscardedPhotoTakesItsWords(t *testing.T) {
	ctx := context.Background()
	o := openTest(t, "", testOptions())
	rec := record(t, o)
	e := mustCapture(t, o, writePhoto(t, t.TempDir(), "sign.jpg", 400))[0].Entry
	words, err := o.AddWrite(ctx, NewWords(e.MomentID, "NO PARKING", "eng"))
	if err != nil {
		t.Fatal(err)
	}
	caption, err := o.AddWrite(ctx, NewCaption(e.MomentID, "the sign by the gate", nil))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := o.Discard(ctx, e.ID, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := o.Write(ctx, words.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("the photo's words after it was discarded: %v; want them gone", err)
	}
	waitFor(t, 5*time.Second, "the words' removed event", func() bool { return len(rec.of(words.ID, EventRemoved)) == 1 })
	if w, err := o.Write(ctx, caption.ID); err != nil || w.State != Pending {
		t.Errorf("Dad's caption after the photo was discarded: %+v, %v; want it kept", w, err)
	}
}
