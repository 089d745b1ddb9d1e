package enginetest_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/enginetest"
)

func post(t *testing.T, e *enginetest.Engine, body string) int {
	t.Helper()
	req, _ := http.NewRequest("POST", e.URL+"/v1/moments", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+e.Token)
	resp, err := e.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func TestStart(t *testing.T) {
	e := enginetest.Start(t)
	if e.Pippa == nil || len(e.Engine.Seats()) != 1 {
		t.Fatalf("seat: pippa %v, seats %v; want one pippatest seat", e.Pippa, e.Engine.Seats())
	}
	if strings.HasSuffix(e.URL, "/") || !strings.HasPrefix(e.URL, "http://127.0.0.1:") {
		t.Fatalf("URL %q, want http://127.0.0.1:port without a trailing slash", e.URL)
	}
	if got := post(t, e, `{"kind":"note","client_request_id":"a"}`); got != http.StatusCreated {
		t.Fatalf("create: %d", got)
	}
	if got := post(t, e, `{"kind":"note","client_request_id":"a"}`); got != http.StatusOK {
		t.Fatalf("repeat: %d", got)
	}
	if n := e.OpCount(t, api.OpMomentCreate); n != 1 {
		t.Fatalf("OpCount(moment.create) = %d, want 1", n)
	}
	if n := e.OpCount(t, api.OpMediaPut); n != 0 {
		t.Fatalf("OpCount(media.put) = %d, want 0", n)
	}

	// Restart on the same directory: the data and the request memory stay.
	dir := e.Dir
	e.Close()
	again := enginetest.Start(t, enginetest.WithDir(dir), enginetest.WithoutSeat())
	if again.Pippa != nil || len(again.Engine.Seats()) != 0 {
		t.Fatal("WithoutSeat: a seat is configured")
	}
	if got := post(t, again, `{"kind":"note","client_request_id":"a"}`); got != http.StatusOK {
		t.Fatalf("repeat after restart: %d, want 200", got)
	}
	if h := again.Engine.Health(context.Background()); h.Seq != 1 {
		t.Fatalf("seq after restart %d, want 1", h.Seq)
	}
}

func TestOpCount_Pages(t *testing.T) {
	e := enginetest.Start(t, enginetest.WithoutSeat())
	ctx := context.Background()
	// More ops than one page of the log.
	for i := range api.MaxOpsLimit + 5 {
		if _, _, err := e.Engine.KeepPhrase(ctx, api.KeepPhraseRequest{Text: "phrase " + strconv.Itoa(i)}); err != nil {
			t.Fatal(err)
		}
	}
	if n := e.OpCount(t, ""); n != api.MaxOpsLimit+5 {
		t.Fatalf("OpCount = %d, want %d", n, api.MaxOpsLimit+5)
	}
}
