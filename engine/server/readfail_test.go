package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/sparkfamily/spark/engine"
	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/enginetest"
	"github.com/sparkfamily/spark/engine/pippa"
	"github.com/sparkfamily/spark/engine/pippa/pippatest"
)

// closedURL is the base URL of a port nothing listens on.
func closedURL(tb testing.TB) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	u := "http://" + ln.Addr().String() + "/v1"
	ln.Close()
	return u
}

// waitFinished polls GET /v1/turns/{id} until the turn is finished or
// failed, for up to d.
func waitFinished(tb testing.TB, e *enginetest.Engine, id string, d time.Duration) api.Turn {
	tb.Helper()
	deadline := time.Now().Add(d)
	for {
		var tr api.TurnResponse
		call(tb, e, "GET", "/v1/turns/"+url.PathEscape(id), nil).want(tb, http.StatusOK, &tr)
		if tr.Turn.Status == api.TurnFinished || tr.Turn.Status == api.TurnFailed {
			return *tr.Turn
		}
		if time.Now().After(deadline) {
			tb.Fatalf("turn %s still %s after %v", id, tr.Turn.Status, d)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// turnJSON is GET /v1/turns/{id}'s turn as JSON fields, to see which the
// answer carries.
func turnJSON(tb testing.TB, e *enginetest.Engine, id string) map[string]any {
	tb.Helper()
	var tr struct {
		Turn map[string]any `json:"turn"`
	}
	call(tb, e, "GET", "/v1/turns/"+url.PathEscape(id), nil).want(tb, http.StatusOK, &tr)
	return tr.Turn
}

// Each way a reading fails (Pippa refuses it, can't be reached, answers
// what can't be read; the photo is too large to show her) gets its code,
// classified where it happens: logged with the turn, served in its JSON
// beside the contract's fields, and kept when the mirror is rebuilt from
// the log.
func TestReadingFailure_CodeServedAndRebuilt(t *testing.T) {
	dead := closedURL(t)
	for _, c := range []struct {
		name string
		seat func(p *pippatest.Server) pippa.Config
		// copyBytes is the size of the moment's small copy (0: a small
		// JPEG-sized one).
		copyBytes int
		want      string
	}{
		{"Refused", func(p *pippatest.Server) pippa.Config { p.SetRefuse(true); return p.Config() }, 0, api.ReadPippaRefused},
		{"WrongKey", func(p *pippatest.Server) pippa.Config {
			p.SetKey("the right key")
			c := p.Config()
			c.Key = "a wrong key"
			return c
		}, 0, api.ReadPippaRefused},
		{"Unreachable", func(p *pippatest.Server) pippa.Config { c := p.Config(); c.URL = dead; return c }, 0, api.ReadPippaUnreachable},
		{"ServerErrorEveryTime", func(p *pippatest.Server) pippa.Config { p.FailNext(1000, 503); return p.Config() }, 0, api.ReadPippaUnreachable},
		{"GarbageAnswer", func(p *pippatest.Server) pippa.Config { p.SetRawAnswer("<html>It works!</html>"); return p.Config() }, 0, api.ReadPippaAnswerUnreadable},
		{"EmptyAnswer", func(p *pippatest.Server) pippa.Config {
			p.SetReply(func(pippatest.ChatRequest) string { return "" })
			return p.Config()
		}, 0, api.ReadPippaAnswerUnreadable},
		{"PhotoTooLarge", func(p *pippatest.Server) pippa.Config { return p.Config() }, api.MaxReadImageBytes + 1, api.ReadPhotoTooLarge},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := pippatest.New(t)
			seat := c.seat(p)
			dir := t.TempDir()
			e := enginetest.Start(t, enginetest.WithDir(dir), enginetest.WithConfig(func(cfg *engine.Config) {
				cfg.Seats = []pippa.Config{seat}
				cfg.RetryAttempts = 2
				cfg.RetryBackoff = time.Millisecond
			}))
			m := createMoment(t, e, api.CreateMomentRequest{Kind: api.KindPhoto, Caption: c.name})
			body := []byte("\xff\xd8\xff\xe0 a small copy \xff\xd9")
			if c.copyBytes > 0 {
				body = make([]byte, c.copyBytes)
			}
			if _, _, err := e.Engine.PutMedia(context.Background(), engine.PutMedia{ID: newID(), MomentID: m.ID, Role: api.RoleCopy,
				ContentType: "image/jpeg", Body: bytes.NewReader(body), Size: int64(len(body))}); err != nil {
				t.Fatal(err)
			}
			var tr api.TurnResponse
			call(t, e, "POST", "/v1/moments/"+m.ID+"/turns", `{"client_request_id":"turn-1","mode":"practical"}`).want(t, http.StatusAccepted, &tr)
			// A 32 MiB copy takes a while to read under -race on a busy
			// machine: wait longer than waitTurn does.
			done := waitFinished(t, e, tr.Turn.ID, time.Minute)
			if done.Status != api.TurnFailed || done.Error == "" || done.ErrorCode != c.want {
				t.Fatalf("turn %+v; want failed with the error_code %q and its error", done, c.want)
			}
			j := turnJSON(t, e, tr.Turn.ID)
			if j["error_code"] != c.want || j["error"] != done.Error || j["status"] != api.TurnFailed {
				t.Errorf("GET /v1/turns/{id}: %v; want error_code %q beside the contract's error", j, c.want)
			}
			var mr api.MomentResponse
			call(t, e, "GET", "/v1/moments/"+m.ID, nil).want(t, http.StatusOK, &mr)
			if len(mr.Moment.Turns) != 1 || mr.Moment.Turns[0].ErrorCode != c.want {
				t.Errorf("the moment's turns %+v; want the one with error_code %q", mr.Moment.Turns, c.want)
			}

			e.Close()
			if err := engine.Rebuild(context.Background(), dir, slog.New(slog.NewTextHandler(io.Discard, nil))); err != nil {
				t.Fatal(err)
			}
			again := enginetest.Start(t, enginetest.WithDir(dir), enginetest.WithoutSeat())
			if j := turnJSON(t, again, tr.Turn.ID); j["error_code"] != c.want || j["error"] != done.Error {
				t.Errorf("after a rebuild of the mirror: %v; want error_code %q and the same error", j, c.want)
			}
		})
	}
}

// A finished reading's JSON is the contract's alone: no error_code.
func TestReadingFinished_NoErrorCode(t *testing.T) {
	e := enginetest.Start(t)
	m := createMoment(t, e, api.CreateMomentRequest{Caption: "the sea"})
	var tr api.TurnResponse
	call(t, e, "POST", "/v1/moments/"+m.ID+"/turns", `{"client_request_id":"turn-1","mode":"practical"}`).want(t, http.StatusAccepted, &tr)
	if done := waitTurn(t, e, tr.Turn.ID); done.Status != api.TurnFinished {
		t.Fatalf("turn %+v", done)
	}
	j := turnJSON(t, e, tr.Turn.ID)
	if _, ok := j["error_code"]; ok {
		t.Errorf("a finished turn's JSON %v carries error_code", j)
	}
	for _, f := range []string{"id", "moment_id", "mode", "seat", "status", "text", "error", "client_request_id", "started_at", "finished_at"} {
		if _, ok := j[f]; !ok {
			t.Errorf("the turn's JSON %v lacks the contract's %q", j, f)
		}
	}
}

// An import keeps a failed reading's error_code, checks it, and gives one
// without it (from an engine older than the code) the code its error's
// words give, as the fold of an old log does.
func TestImportTurn_ErrorCode(t *testing.T) {
	e := enginetest.Start(t)
	m := createMoment(t, e, api.CreateMomentRequest{Caption: "a letter"})
	failed := func(code, errText string) api.ImportTurnRequest {
		return api.ImportTurnRequest{ID: newID(), MomentID: m.ID, Mode: api.ModePractical, Seat: "main",
			Status: api.TurnFailed, Error: errText, ErrorCode: code}
	}

	in := failed(api.ReadPippaRefused, "the seat said no")
	var tr api.TurnResponse
	call(t, e, "POST", "/v1/import/turns", in).want(t, http.StatusCreated, &tr)
	if tr.Turn.ErrorCode != api.ReadPippaRefused {
		t.Errorf("imported %+v; want error_code %q", tr.Turn, api.ReadPippaRefused)
	}
	other := in
	other.ErrorCode = api.ReadPippaUnreachable
	call(t, e, "POST", "/v1/import/turns", other).wantError(t, http.StatusConflict, api.CodeImportConflict)

	// A newer engine's code is kept as it is.
	newer := failed("pippa_on_holiday", "gone fishing")
	call(t, e, "POST", "/v1/import/turns", newer).want(t, http.StatusCreated, &tr)
	if tr.Turn.ErrorCode != "pippa_on_holiday" {
		t.Errorf("imported %+v; want the newer engine's code kept", tr.Turn)
	}

	old := failed("", `Pippa's seat "pippa" (http://192.168.1.9:11434/v1) did not answer after 5 attempts: dial tcp: connection refused`)
	call(t, e, "POST", "/v1/import/turns", old).want(t, http.StatusCreated, &tr)
	if tr.Turn.ErrorCode != api.ReadPippaUnreachable {
		t.Errorf("imported without a code: %+v; want %q from its words", tr.Turn, api.ReadPippaUnreachable)
	}
	call(t, e, "POST", "/v1/import/turns", old).want(t, http.StatusOK, &tr)
	if tr.Created == nil || *tr.Created {
		t.Errorf("a repeat of the import without a code: created %v; want false", tr.Created)
	}

	for name, r := range map[string]api.ImportTurnRequest{
		"NotACode":      failed("Pippa refused!", "x"),
		"TooLong":       failed(string(bytes.Repeat([]byte("a"), 65)), "x"),
		"OnAFinishTurn": {ID: newID(), MomentID: m.ID, Mode: api.ModePractical, Status: api.TurnFinished, Text: "fine", ErrorCode: api.ReadFailed},
	} {
		t.Run(name, func(t *testing.T) {
			call(t, e, "POST", "/v1/import/turns", r).wantError(t, http.StatusBadRequest, api.CodeBadErrorCode)
		})
	}
	if b, _ := json.Marshal(api.ImportTurnRequest{}); bytes.Contains(b, []byte("error_code")) {
		t.Errorf("an import without a code sends %s", b)
	}
}
