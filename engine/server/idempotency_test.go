package server_test

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/enginetest"
)

// The contract's idempotency table, one test per row, over HTTP: each
// asserts the answers and the count of op lines in the log.

func TestIdempotency_CreateSameRequestID(t *testing.T) {
	e := enginetest.Start(t, enginetest.WithoutSeat())
	// No moment id: the engine mints one and the repeat returns it.
	body := `{"client_request_id":"cap-1","kind":"note","caption":"first"}`
	var first, again api.MomentResponse
	call(t, e, "POST", "/v1/moments", body).want(t, http.StatusCreated, &first)
	call(t, e, "POST", "/v1/moments", `{"client_request_id":"cap-1","kind":"note","caption":"changed"}`).want(t, http.StatusOK, &again)
	if *again.Created || again.Moment.ID != first.Moment.ID || again.Moment.Caption != "first" {
		t.Fatalf("repeat answered %+v created %v, want moment %s unchanged, created false", again.Moment, *again.Created, first.Moment.ID)
	}
	if n := e.OpCount(t, api.OpMomentCreate); n != 1 {
		t.Fatalf("%d moment.create lines, want 1", n)
	}
}

func TestIdempotency_CreateSameMomentID(t *testing.T) {
	e := enginetest.Start(t, enginetest.WithoutSeat())
	id := newID()
	var first, again, deleted api.MomentResponse
	call(t, e, "POST", "/v1/moments", fmt.Sprintf(`{"id":%q,"client_request_id":"phone-1","kind":"photo"}`, id)).want(t, http.StatusCreated, &first)
	// Another request id, the same phone-minted moment id.
	call(t, e, "POST", "/v1/moments", fmt.Sprintf(`{"id":%q,"client_request_id":"phone-2","kind":"photo"}`, id)).want(t, http.StatusOK, &again)
	if *again.Created || again.Moment.ID != id {
		t.Fatalf("repeat %+v created %v", again.Moment, *again.Created)
	}
	// Deleted or not, the id is taken.
	call(t, e, "DELETE", "/v1/moments/"+id, nil).want(t, http.StatusOK, nil)
	call(t, e, "POST", "/v1/moments", fmt.Sprintf(`{"id":%q,"kind":"photo"}`, id)).want(t, http.StatusOK, &deleted)
	if *deleted.Created || deleted.Moment.DeletedAt == nil {
		t.Fatalf("create over a deleted moment %+v, want it returned, deleted", deleted.Moment)
	}
	if n := e.OpCount(t, api.OpMomentCreate); n != 1 {
		t.Fatalf("%d moment.create lines, want 1", n)
	}
}

func TestIdempotency_CreateConcurrent(t *testing.T) {
	e := enginetest.Start(t, enginetest.WithoutSeat())
	id := newID()
	const n = 50
	var wg sync.WaitGroup
	statuses := make([]int, n)
	ids := make([]string, n)
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			// Only the test's goroutine may end the test: failures are
			// collected and reported after Wait.
			var mr api.MomentResponse
			a, err := send(e, "POST", "/v1/moments", fmt.Sprintf(`{"id":%q,"client_request_id":"same","kind":"note"}`, id))
			if err == nil && a.Status < 300 {
				if err = a.decode(a.Status, &mr); err == nil && mr.Moment != nil {
					ids[i] = mr.Moment.ID
				}
			}
			statuses[i], errs[i] = a.Status, err
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	created := 0
	for i := range n {
		if statuses[i] == http.StatusCreated {
			created++
		} else if statuses[i] != http.StatusOK {
			t.Fatalf("status %d", statuses[i])
		}
		if ids[i] != id {
			t.Fatalf("answer %d names moment %s, want %s", i, ids[i], id)
		}
	}
	if created != 1 {
		t.Fatalf("%d answers 201, want 1", created)
	}
	if n := e.OpCount(t, api.OpMomentCreate); n != 1 {
		t.Fatalf("%d moment.create lines, want 1", n)
	}
}

func TestIdempotency_UploadMedia(t *testing.T) {
	e := enginetest.Start(t, enginetest.WithoutSeat())
	m := createMoment(t, e, api.CreateMomentRequest{Kind: api.KindPhoto})
	id := newID()
	data := randomBytes(t, 4096)
	call(t, e, "PUT", mediaPath(id, m.ID, "copy"), data).want(t, http.StatusCreated, nil)
	var again api.MediaResponse
	call(t, e, "PUT", mediaPath(id, m.ID, "copy"), data).want(t, http.StatusOK, &again)
	if again.Created {
		t.Fatal("same bytes again: created true")
	}
	call(t, e, "PUT", mediaPath(id, m.ID, "copy"), randomBytes(t, 4096)).wantError(t, http.StatusConflict, api.CodeMediaConflict)
	got := call(t, e, "GET", "/v1/media/"+id, nil)
	if !bytes.Equal(got.Body, data) {
		t.Fatal("the stored bytes changed after a conflicting upload")
	}
	if n := e.OpCount(t, api.OpMediaPut); n != 1 {
		t.Fatalf("%d media.put lines, want 1", n)
	}
}

func TestIdempotency_StartTurn(t *testing.T) {
	e := enginetest.Start(t)
	m := createMoment(t, e, api.CreateMomentRequest{Caption: "a dog"})
	body := `{"client_request_id":"practical-1","mode":"practical"}`
	var first, again api.TurnResponse
	call(t, e, "POST", "/v1/moments/"+m.ID+"/turns", body).want(t, http.StatusAccepted, &first)
	// A repeat while running or queued, then after it finished.
	call(t, e, "POST", "/v1/moments/"+m.ID+"/turns", body).want(t, http.StatusOK, &again)
	if *again.Created || again.Turn.ID != first.Turn.ID {
		t.Fatalf("repeat %+v created %v, want turn %s", again.Turn, *again.Created, first.Turn.ID)
	}
	done := waitTurn(t, e, first.Turn.ID)
	call(t, e, "POST", "/v1/moments/"+m.ID+"/turns", body).want(t, http.StatusOK, &again)
	if *again.Created || again.Turn.ID != first.Turn.ID || again.Turn.Status != api.TurnFinished || again.Turn.Text != done.Text {
		t.Fatalf("repeat after finish %+v, want the finished turn", again.Turn)
	}
	if calls := e.Pippa.Calls(); calls != 1 {
		t.Fatalf("Pippa was asked %d times, want 1", calls)
	}
	if n := e.OpCount(t, api.OpTurnStart); n != 1 {
		t.Fatalf("%d turn.start lines, want 1", n)
	}
	if n := e.OpCount(t, api.OpTurnFinish); n != 1 {
		t.Fatalf("%d turn.finish lines, want 1", n)
	}
}

func TestIdempotency_QuickRecall(t *testing.T) {
	e := enginetest.Start(t, enginetest.WithoutSeat())
	call(t, e, "POST", "/v1/phrases", `{"text":"morning fog"}`).want(t, http.StatusCreated, nil)
	var first, again api.RecallResponse
	call(t, e, "POST", "/v1/recalls", `{"id":"recall-7"}`).want(t, http.StatusCreated, &first)
	call(t, e, "POST", "/v1/recalls", `{"id":"recall-7"}`).want(t, http.StatusOK, &again)
	if again.Created || again.Moment.ID != first.Moment.ID || again.Turn.ID != "recall-7:turn" {
		t.Fatalf("repeat %+v, want moment %s and turn recall-7:turn", again, first.Moment.ID)
	}
	if n := e.OpCount(t, api.OpMomentCreate); n != 1 {
		t.Fatalf("%d moment.create lines, want 1", n)
	}
	if n := e.OpCount(t, api.OpTurnStart); n != 1 {
		t.Fatalf("%d turn.start lines, want 1", n)
	}
}

func TestIdempotency_Job(t *testing.T) {
	e := enginetest.Start(t, enginetest.WithoutSeat())
	m := createMoment(t, e, api.CreateMomentRequest{})
	var first, again api.JobResponse
	call(t, e, "POST", "/v1/moments/"+m.ID+"/jobs", `{"id":"hq-1"}`).want(t, http.StatusAccepted, &first)
	call(t, e, "POST", "/v1/moments/"+m.ID+"/jobs", `{"id":"hq-1"}`).want(t, http.StatusOK, &again)
	if again.Created || len(again.Turns) != len(first.Turns) || again.Turns[0].ID != "hq-1:0" {
		t.Fatalf("repeat %+v, want the same turns as %+v", again, first)
	}
	if n := e.OpCount(t, api.OpTurnStart); n != len(first.Turns) {
		t.Fatalf("%d turn.start lines, want %d", n, len(first.Turns))
	}
}

func TestIdempotency_KeepPhrase(t *testing.T) {
	e := enginetest.Start(t, enginetest.WithoutSeat())
	var first, again api.PhraseResponse
	call(t, e, "POST", "/v1/phrases", `{"text":"Salt Air"}`).want(t, http.StatusCreated, &first)
	call(t, e, "POST", "/v1/phrases", `{"text":"  salt   air "}`).want(t, http.StatusOK, &again)
	if again.Created || again.Phrase.ID != "keep:salt air" {
		t.Fatalf("repeat %+v created %v", again.Phrase, again.Created)
	}
	if n := e.OpCount(t, api.OpPhraseKeep); n != 1 {
		t.Fatalf("%d phrase.keep lines, want 1", n)
	}
	var rm api.RemovedResponse
	call(t, e, "DELETE", "/v1/phrases/"+url.PathEscape("keep:salt air"), nil).want(t, http.StatusOK, &rm)
	call(t, e, "DELETE", "/v1/phrases/"+url.PathEscape("keep:salt air"), nil).want(t, http.StatusOK, &rm)
	if rm.Removed {
		t.Fatal("second removal: removed true")
	}
	if n := e.OpCount(t, api.OpPhraseUnkeep); n != 1 {
		t.Fatalf("%d phrase.unkeep lines, want 1", n)
	}
}

func TestIdempotency_DeleteMoment(t *testing.T) {
	e := enginetest.Start(t, enginetest.WithoutSeat())
	m := createMoment(t, e, api.CreateMomentRequest{})
	var d api.DeleteResponse
	call(t, e, "DELETE", "/v1/moments/"+m.ID, nil).want(t, http.StatusOK, &d)
	call(t, e, "DELETE", "/v1/moments/"+m.ID, nil).want(t, http.StatusOK, &d)
	if d.Deleted {
		t.Fatal("second delete: deleted true")
	}
	if n := e.OpCount(t, api.OpMomentDelete); n != 1 {
		t.Fatalf("%d moment.delete lines, want 1", n)
	}
}

func TestIdempotency_EditMoment(t *testing.T) {
	e := enginetest.Start(t, enginetest.WithoutSeat())
	m := createMoment(t, e, api.CreateMomentRequest{Caption: "old"})
	var first, again api.MomentResponse
	body := `{"caption":"new","taken_at":"2026-02-03T04:05:06+01:00"}`
	call(t, e, "PATCH", "/v1/moments/"+m.ID, body).want(t, http.StatusOK, &first)
	time.Sleep(2 * time.Millisecond) // a second write would get a later updated_at
	call(t, e, "PATCH", "/v1/moments/"+m.ID, body).want(t, http.StatusOK, &again)
	if diff := cmp.Diff(first.Moment, again.Moment); diff != "" {
		t.Fatalf("the same edit again changed what a reader sees (-first +again):\n%s", diff)
	}
	if n := e.OpCount(t, api.OpMomentEdit); n != 1 {
		t.Fatalf("%d moment.edit lines, want 1", n)
	}
}

func TestIdempotency_RequestIDReused(t *testing.T) {
	e := enginetest.Start(t, enginetest.WithoutSeat())
	m := createMoment(t, e, api.CreateMomentRequest{ClientRequestID: "once"})
	before := e.OpCount(t, "")
	call(t, e, "POST", "/v1/moments/"+m.ID+"/turns", `{"client_request_id":"once","mode":"practical"}`).
		wantError(t, http.StatusConflict, api.CodeRequestIDReused)
	if after := e.OpCount(t, ""); after != before {
		t.Fatalf("log went from %d to %d ops", before, after)
	}
}
