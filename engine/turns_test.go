package engine

import (
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/pippa"
	"github.com/sparkfamily/spark/engine/pippa/pippatest"
)

// photoMoment creates a photo moment with a small copy.
func photoMoment(tb testing.TB, e *Engine, caption string) *api.Moment {
	tb.Helper()
	mo := mustCreate(tb, e, api.CreateMomentRequest{ID: newULID(), Caption: caption})
	mustPut(tb, e, newULID(), mo.ID, api.RoleCopy, smallJPEG(tb, 4))
	return mo
}

func TestStartTurn_SamePracticalRequestTwice(t *testing.T) {
	p := pippatest.New(t)
	e := openEngine(t, t.TempDir(), withSeats(p.Config()))
	mo := photoMoment(t, e, "water bill")
	req := api.StartTurnRequest{ClientRequestID: "turn-1", Mode: api.ModePractical}
	first, created, err := e.StartTurn(ctxT(t), mo.ID, req)
	if err != nil || !created {
		t.Fatalf("first start: created=%v err=%v", created, err)
	}
	done := waitTurn(t, e, first.ID)
	if done.Status != api.TurnFinished || done.Text == "" || done.Seat != "pippatest" || done.FinishedAt == nil || done.ClientRequestID != "turn-1" {
		t.Fatalf("finished turn = %+v", done)
	}
	again, created, err := e.StartTurn(ctxT(t), mo.ID, req)
	if err != nil || created {
		t.Fatalf("repeat: created=%v err=%v, want false, nil", created, err)
	}
	if again.ID != first.ID || again.Text != done.Text {
		t.Errorf("repeat = %+v, want the first turn %+v", again, done)
	}
	// Give a wrongly started second ask time to show.
	time.Sleep(50 * time.Millisecond)
	if n := p.Calls(); n != 1 {
		t.Errorf("Pippa was asked %d times, want exactly 1", n)
	}
	wantOps(t, e, map[string]int{api.OpMomentCreate: 1, api.OpMediaPut: 1, api.OpTurnStart: 1, api.OpTurnFinish: 1})

	// The seat was shown the small copy and the caption.
	reqs := p.Requests()
	if len(reqs) != 1 || len(reqs[0].Images()) != 1 || !strings.HasPrefix(reqs[0].Images()[0], "data:image/jpeg;base64,") {
		t.Fatalf("seat requests = %+v, want one with the small copy", reqs)
	}
	img, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(reqs[0].Images()[0], "data:image/jpeg;base64,"))
	if err != nil || string(img) != string(smallJPEG(t, 4)) {
		t.Errorf("the image sent is not the small copy (err %v)", err)
	}
	if !strings.Contains(reqs[0].UserText(), "water bill") {
		t.Errorf("the caption is not in the prompt: %q", reqs[0].UserText())
	}
	mo2, err := e.Moment(ctxT(t), mo.ID)
	if err != nil || len(mo2.Turns) != 1 || mo2.Turns[0].ID != first.ID {
		t.Errorf("moment turns = %+v, %v", mo2.Turns, err)
	}
}

func TestTurn_TransientFailureRetried(t *testing.T) {
	p := pippatest.New(t)
	p.FailNext(2, 503)
	e := openEngine(t, t.TempDir(), withSeats(p.Config()))
	turn := photoTurn(t, e)
	done := waitTurn(t, e, turn.ID)
	if done.Status != api.TurnFinished || done.Error != "" {
		t.Errorf("turn = %+v, want finished after the retries", done)
	}
	if n := p.Calls(); n != 3 {
		t.Errorf("Pippa was asked %d times, want 3 (2 failures, 1 answer)", n)
	}
	wantOps(t, e, map[string]int{api.OpMomentCreate: 1, api.OpMediaPut: 1, api.OpTurnStart: 1, api.OpTurnFinish: 1})
}

func TestTurn_TransientFailuresExhausted(t *testing.T) {
	p := pippatest.New(t)
	p.FailNext(10, 503)
	e := openEngine(t, t.TempDir(), withSeats(p.Config()), func(c *Config) { c.RetryAttempts = 3 })
	turn := photoTurn(t, e)
	done := waitTurn(t, e, turn.ID)
	if done.Status != api.TurnFailed || !strings.Contains(done.Error, "did not answer after 3 attempts") {
		t.Errorf("turn = %+v, want failed after 3 attempts", done)
	}
	if n := p.Calls(); n != 3 {
		t.Errorf("Pippa was asked %d times, want 3", n)
	}
}

func TestTurn_PermanentFailure(t *testing.T) {
	p := pippatest.New(t)
	p.FailNext(1, 401)
	e := openEngine(t, t.TempDir(), withSeats(p.Config()))
	turn := photoTurn(t, e)
	done := waitTurn(t, e, turn.ID)
	if done.Status != api.TurnFailed || !strings.Contains(done.Error, "check the seat's URL, model and key") || done.Text != "" {
		t.Errorf("turn = %+v, want failed with an actionable error", done)
	}
	if n := p.Calls(); n != 1 {
		t.Errorf("Pippa was asked %d times, want 1 (a 401 is not retried)", n)
	}
	wantOps(t, e, map[string]int{api.OpMomentCreate: 1, api.OpMediaPut: 1, api.OpTurnStart: 1, api.OpTurnFinish: 1})
}

func TestTurn_NoSeatQueuedThenSetSeats(t *testing.T) {
	dir := t.TempDir()
	e := openEngine(t, dir)
	turn := photoTurn(t, e)
	time.Sleep(50 * time.Millisecond)
	if got, _ := e.Turn(ctxT(t), turn.ID); got.Status != api.TurnQueued {
		t.Fatalf("turn with no seat = %+v, want queued", got)
	}
	if err := e.SetSeats(ctxT(t), []pippa.Config{{URL: "ftp://x"}}); err == nil || !isBadSeat(err) {
		t.Fatalf("SetSeats with a bad URL: %v, want ErrBadSeat", err)
	}
	p := pippatest.New(t)
	if err := e.SetSeats(ctxT(t), []pippa.Config{p.Config()}); err != nil {
		t.Fatal(err)
	}
	if done := waitTurn(t, e, turn.ID); done.Status != api.TurnFinished {
		t.Errorf("turn = %+v, want finished once a seat is set", done)
	}
	if _, err := os.Stat(filepath.Join(dir, ConfigFile)); err != nil {
		t.Fatalf("engine.json was not written: %v", err)
	}
	e.Close()

	// The seat is remembered across a restart.
	e2 := openEngine(t, dir)
	if seats := e2.Seats(); len(seats) != 1 || seats[0].URL != p.URL() || seats[0].Model != pippatest.Model {
		t.Errorf("seats after restart = %+v", seats)
	}
}

// photoTurn starts a practical turn on a new photo moment of e.
func photoTurn(t *testing.T, e *Engine) *api.Turn {
	t.Helper()
	mo := photoMoment(t, e, "")
	turn, _, err := e.StartTurn(ctxT(t), mo.ID, api.StartTurnRequest{ClientRequestID: "t", Mode: api.ModePractical})
	if err != nil {
		t.Fatal(err)
	}
	return turn
}

func isBadSeat(err error) bool { return errors.Is(err, ErrBadSeat) }

// TestTurn_CrashMidTurnAskedAgain stops the engine while Pippa is thinking:
// turn.start is in the log, turn.finish is not. The next Open asks again.
func TestTurn_CrashMidTurnAskedAgain(t *testing.T) {
	dir := t.TempDir()
	p := pippatest.New(t)
	p.SetDelay(time.Minute)
	e := openEngine(t, dir, withSeats(p.Config()))
	turn := photoTurn(t, e)
	waitFor(t, "Pippa to be asked", func() bool { return p.Calls() == 1 })
	if got, _ := e.Turn(ctxT(t), turn.ID); got.Status != api.TurnRunning || got.Seat != "pippatest" {
		t.Errorf("turn while Pippa thinks = %+v, want running on pippatest", got)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	p.SetDelay(0)
	e2 := openEngine(t, dir, withSeats(p.Config()))
	wantOps(t, e2, map[string]int{api.OpMomentCreate: 1, api.OpMediaPut: 1, api.OpTurnStart: 1})
	if done := waitTurn(t, e2, turn.ID); done.Status != api.TurnFinished {
		t.Errorf("turn after restart = %+v, want finished", done)
	}
	if n := p.Calls(); n != 2 {
		t.Errorf("Pippa was asked %d times, want 2 (once before the crash, once after)", n)
	}
	wantOps(t, e2, map[string]int{api.OpMomentCreate: 1, api.OpMediaPut: 1, api.OpTurnStart: 1, api.OpTurnFinish: 1})
}

func TestStartRecall(t *testing.T) {
	p := pippatest.New(t)
	e := openEngine(t, t.TempDir(), withSeats(p.Config()))
	for _, text := range []string{"one", "two", "three", "four", "five", "six", "seven"} {
		if _, _, err := e.KeepPhrase(ctxT(t), api.KeepPhraseRequest{Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	mo, turn, created, err := e.StartRecall(ctxT(t), "recall-1")
	if err != nil || !created {
		t.Fatalf("recall: created=%v err=%v", created, err)
	}
	if mo.Kind != api.KindRecall || mo.Caption != "one\ntwo\nthree\nfour\nfive" || turn.ID != "recall-1:turn" || turn.MomentID != mo.ID || turn.Mode != api.ModeRecall {
		t.Fatalf("recall = %+v, turn %+v", mo, turn)
	}
	again, turn2, created, err := e.StartRecall(ctxT(t), "recall-1")
	if err != nil || created || again.ID != mo.ID || turn2.ID != turn.ID {
		t.Fatalf("repeat = %+v %+v created=%v err=%v, want the same moment and turn", again, turn2, created, err)
	}
	if done := waitTurn(t, e, turn.ID); done.Status != api.TurnFinished {
		t.Errorf("recall turn = %+v", done)
	}
	if reqs := p.Requests(); len(reqs) != 1 || !strings.Contains(reqs[0].UserText(), "five") {
		t.Errorf("seat requests = %+v, want one naming the phrases", reqs)
	}
	wantOps(t, e, map[string]int{api.OpPhraseKeep: 7, api.OpMomentCreate: 1, api.OpTurnStart: 1, api.OpTurnFinish: 1})

	// The next recall starts with the phrases least recently recalled.
	mo3, _, _, err := e.StartRecall(ctxT(t), "recall-2")
	if err != nil {
		t.Fatal(err)
	}
	if mo3.Caption != "six\nseven\none\ntwo\nthree" {
		t.Errorf("second recall caption = %q, want the phrases not recalled first", mo3.Caption)
	}
	ps, err := e.Phrases(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	if ps[0].LastRecalledAt == nil || !ps[0].LastRecalledAt.Equal(mo3.CreatedAt) || !ps[3].LastRecalledAt.Equal(mo.CreatedAt) {
		t.Errorf("last_recalled_at not set from the recalls: %+v", ps)
	}
}

func TestStartJob(t *testing.T) {
	a, b := pippatest.New(t), pippatest.New(t)
	ca, cb := a.Config(), b.Config()
	ca.Name, cb.Name = "small", "large"
	e := openEngine(t, t.TempDir(), withSeats(ca, cb))
	mo := photoMoment(t, e, "")
	turns, created, err := e.StartJob(ctxT(t), mo.ID, "job-1")
	if err != nil || !created {
		t.Fatalf("job: created=%v err=%v", created, err)
	}
	if len(turns) != 2 || turns[0].ID != "job-1:0" || turns[1].ID != "job-1:1" || turns[0].Mode != api.ModeCareful {
		t.Fatalf("job turns = %+v", turns)
	}
	again, created, err := e.StartJob(ctxT(t), mo.ID, "job-1")
	if err != nil || created || len(again) != 2 || again[0].ID != "job-1:0" {
		t.Fatalf("repeat = %+v created=%v err=%v, want the same turns", again, created, err)
	}
	for i, seat := range []string{"small", "large"} {
		done := waitTurn(t, e, turns[i].ID)
		if done.Status != api.TurnFinished || done.Seat != seat {
			t.Errorf("turn %d = %+v, want finished by %s", i, done, seat)
		}
	}
	if a.Calls() != 1 || b.Calls() != 1 {
		t.Errorf("seat calls = %d, %d; want one each", a.Calls(), b.Calls())
	}
	wantOps(t, e, map[string]int{api.OpMomentCreate: 1, api.OpMediaPut: 1, api.OpTurnStart: 2, api.OpTurnFinish: 2})
}

func TestStartJob_NoSeat(t *testing.T) {
	e := openEngine(t, t.TempDir())
	mo := photoMoment(t, e, "")
	turns, _, err := e.StartJob(ctxT(t), mo.ID, "job-1")
	if err != nil {
		t.Fatal(err)
	}
	if len(turns) != 1 || turns[0].ID != "job-1:0" || turns[0].Status != api.TurnQueued {
		t.Errorf("job turns with no seat = %+v, want one queued", turns)
	}
}

// TestStartTurn_Concurrent fires 30 identical turn starts at once: one
// turn.start line, one turn, and Pippa asked once.
func TestStartTurn_Concurrent(t *testing.T) {
	p := pippatest.New(t)
	e := openEngine(t, t.TempDir(), withSeats(p.Config()))
	mo := photoMoment(t, e, "")
	const n = 30
	ids := make([]string, n)
	errs := make([]error, n)
	atOnce(n, func(i int) {
		turn, _, err := e.StartTurn(ctxT(t), mo.ID, api.StartTurnRequest{ClientRequestID: "same", Mode: api.ModePractical})
		errs[i] = err
		if turn != nil {
			ids[i] = turn.ID
		}
	})
	for i := range n {
		if errs[i] != nil || ids[i] != ids[0] {
			t.Fatalf("start %d: turn %s err %v; start 0 got %s", i, ids[i], errs[i], ids[0])
		}
	}
	waitTurn(t, e, ids[0])
	if c := p.Calls(); c != 1 {
		t.Errorf("Pippa was asked %d times, want 1", c)
	}
	wantOps(t, e, map[string]int{api.OpMomentCreate: 1, api.OpMediaPut: 1, api.OpTurnStart: 1, api.OpTurnFinish: 1})
}

// A job and a create racing for the job's derived request id "<job id>:0":
// exactly one of them takes it, the other is refused with
// request_id_reused, and the log holds the winner's lines only.
func TestStartJob_RacesForDerivedRequestID(t *testing.T) {
	for round := range 5 {
		e := openEngine(t, t.TempDir())
		mo := mustCreate(t, e, api.CreateMomentRequest{Kind: api.KindNote})
		before := opCounts(t, e)
		const n = 8
		var wg sync.WaitGroup
		jobErrs, createErrs := make([]error, n), make([]error, n)
		for i := range n {
			wg.Go(func() { _, _, jobErrs[i] = e.StartJob(ctxT(t), mo.ID, "race") })
			wg.Go(func() {
				_, _, createErrs[i] = e.CreateMoment(ctxT(t), api.CreateMomentRequest{ClientRequestID: "race:0", Kind: api.KindNote})
			})
		}
		wg.Wait()
		after := opCounts(t, e)
		jobWon := jobErrs[0] == nil
		for i := range n {
			if (jobErrs[i] == nil) != jobWon || (createErrs[i] == nil) == jobWon {
				t.Fatalf("round %d: job errors %v, create errors %v: want one side to win every call", round, jobErrs, createErrs)
			}
			if jobWon {
				wantCode(t, createErrs[i], api.CodeRequestIDReused)
			} else {
				wantCode(t, jobErrs[i], api.CodeRequestIDReused)
			}
		}
		turns, creates := after[api.OpTurnStart]-before[api.OpTurnStart], after[api.OpMomentCreate]-before[api.OpMomentCreate]
		if jobWon && (turns != 1 || creates != 0) || !jobWon && (turns != 0 || creates != 1) {
			t.Fatalf("round %d (job won: %v): %d turn.start and %d moment.create lines", round, jobWon, turns, creates)
		}
		e.Close()
	}
}
