package server_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/enginetest"
	"github.com/sparkfamily/spark/engine/pippa"
	"github.com/sparkfamily/spark/engine/server"
	"github.com/sparkfamily/spark/internal/syncbuf"
)

func newID() string { return ulid.Make().String() }

func TestHealth(t *testing.T) {
	e := enginetest.Start(t, enginetest.WithoutSeat())
	createMoment(t, e, api.CreateMomentRequest{})
	var h api.Health
	// No token: health is the one open route.
	call(t, e, "GET", "/v1/health", nil, "Authorization", "").want(t, http.StatusOK, &h)
	if !h.OK || h.Version == "" || h.Seq != 1 {
		t.Fatalf("health %+v, want ok, a version and seq 1", h)
	}
}

// TestHealthPippa: health tells whether the engine has a Pippa to ask
// (issue 36), so that a window never promises a reading nobody will make:
// none without a seat, one as soon as a seat is set, without a restart.
func TestHealthPippa(t *testing.T) {
	seated := enginetest.Start(t)
	var h api.Health
	call(t, seated, "GET", "/v1/health", nil, "Authorization", "").want(t, http.StatusOK, &h)
	if h.Pippa == nil || !h.Pippa.Seated {
		t.Fatalf("health of an engine with a seat: pippa %+v, want seated", h.Pippa)
	}

	e := enginetest.Start(t, enginetest.WithoutSeat())
	h = api.Health{}
	call(t, e, "GET", "/v1/health", nil, "Authorization", "").want(t, http.StatusOK, &h)
	if h.Pippa == nil || h.Pippa.Seated {
		t.Fatalf("health of an engine with no seat: pippa %+v, want not seated", h.Pippa)
	}
	seat := seated.Engine.Seats()[0]
	if err := e.Engine.SetSeats(context.Background(), []pippa.Config{seat}); err != nil {
		t.Fatal(err)
	}
	h = api.Health{}
	call(t, e, "GET", "/v1/health", nil, "Authorization", "").want(t, http.StatusOK, &h)
	if h.Pippa == nil || !h.Pippa.Seated {
		t.Fatalf("health once a seat is set: pippa %+v, want seated", h.Pippa)
	}
}

func TestAuth(t *testing.T) {
	e := enginetest.Start(t, enginetest.WithoutSeat())
	for _, tc := range []struct {
		name, method, path, auth string
	}{
		{"NoToken", "GET", "/v1/moments", ""},
		{"WrongToken", "GET", "/v1/moments", "Bearer not-a-token"},
		{"WrongScheme", "GET", "/v1/moments", "Basic " + e.Token},
		{"EmptyBearer", "GET", "/v1/moments", "Bearer "},
		{"Write", "POST", "/v1/moments", ""},
		{"Metrics", "GET", "/metrics", ""},
		{"UnknownRoute", "GET", "/v1/nothing", ""},
		{"HealthWrongMethod", "POST", "/v1/health", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := call(t, e, tc.method, tc.path, `{"kind":"note"}`, "Authorization", tc.auth)
			err := a.wantError(t, http.StatusUnauthorized, api.CodeUnauthorized)
			if !strings.Contains(err.Message, "spark-engine token add") {
				t.Errorf("message %q does not say how to get a token", err.Message)
			}
			if got := a.Header.Get("WWW-Authenticate"); !strings.HasPrefix(got, "Bearer") {
				t.Errorf("WWW-Authenticate %q, want Bearer", got)
			}
		})
	}
	t.Run("BearerCaseInsensitive", func(t *testing.T) {
		call(t, e, "GET", "/v1/moments", nil, "Authorization", "bearer "+e.Token).want(t, http.StatusOK, nil)
	})
	if n := e.OpCount(t, ""); n != 0 {
		t.Fatalf("%d ops written by unauthorized requests, want 0", n)
	}
}

func TestLoopbackHostsOnly(t *testing.T) {
	e := enginetest.Start(t, enginetest.WithoutSeat(), enginetest.WithLoopbackHostsOnly())
	for _, host := range []string{"127.0.0.1", "127.0.0.1:8787", "localhost", "LOCALHOST:1", "[::1]", "[::1]:8787"} {
		t.Run("OK/"+host, func(t *testing.T) {
			call(t, e, "GET", "/v1/moments", nil, "Host", host).want(t, http.StatusOK, nil)
		})
	}
	for _, host := range []string{"evil.example", "evil.example:8787", "127.0.0.2", "localhost.evil.example", "10.0.0.1:8787"} {
		t.Run("Refused/"+host, func(t *testing.T) {
			call(t, e, "POST", "/v1/moments", `{"kind":"note"}`, "Host", host).wantError(t, http.StatusForbidden, api.CodeBadHost)
			// The guard comes before auth and covers health too.
			call(t, e, "GET", "/v1/health", nil, "Host", host, "Authorization", "").wantError(t, http.StatusForbidden, api.CodeBadHost)
		})
	}
	if n := e.OpCount(t, ""); n != 0 {
		t.Fatalf("%d ops written by refused hosts, want 0", n)
	}

	t.Run("OffByDefault", func(t *testing.T) {
		e := enginetest.Start(t, enginetest.WithoutSeat())
		call(t, e, "GET", "/v1/moments", nil, "Host", "spark.example.org").want(t, http.StatusOK, nil)
	})
}

func TestUnknownRouteAndMethod(t *testing.T) {
	e := enginetest.Start(t, enginetest.WithoutSeat())
	for _, path := range []string{"/", "/v1", "/v1/nothing", "/v2/moments", "/v1/moments/" + newID() + "/nothing"} {
		t.Run("NotFound"+path, func(t *testing.T) {
			call(t, e, "GET", path, nil).wantError(t, http.StatusNotFound, api.CodeNotFound)
		})
	}
	for _, tc := range []struct{ method, path, allow string }{
		{"PUT", "/v1/moments", "GET, HEAD, POST"},
		{"POST", "/v1/moments/" + newID(), "DELETE, GET, HEAD, PATCH"},
		{"DELETE", "/v1/media/" + newID(), "GET, HEAD, OPTIONS, POST, PUT"}, // POST, OPTIONS: resumable uploads [extension]
		{"GET", "/v1/recalls", "POST"},
		{"POST", "/v1/ops", "GET, HEAD"},
		{"PUT", "/v1/phrases/keep:x", "DELETE"},
	} {
		t.Run("MethodNotAllowed/"+tc.method+tc.path, func(t *testing.T) {
			a := call(t, e, tc.method, tc.path, "{}")
			a.wantError(t, http.StatusMethodNotAllowed, api.CodeMethodNotAllowed)
			if got := a.Header.Get("Allow"); got != tc.allow {
				t.Errorf("Allow %q, want %q", got, tc.allow)
			}
		})
	}
	if n := e.OpCount(t, ""); n != 0 {
		t.Fatalf("%d ops written, want 0", n)
	}
}

func TestMetrics(t *testing.T) {
	e := enginetest.Start(t)
	m := createMoment(t, e, api.CreateMomentRequest{})
	var tr api.TurnResponse
	call(t, e, "POST", "/v1/moments/"+m.ID+"/turns", `{"client_request_id":"t","mode":"practical"}`).want(t, http.StatusAccepted, &tr)
	waitTurn(t, e, tr.Turn.ID)
	call(t, e, "GET", "/v1/nothing", nil)
	// The runner counts a turn once its turn.finish is in the log, which
	// readers may see first: wait (boundedly) for the count.
	var body string
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		a := call(t, e, "GET", "/metrics", nil)
		a.want(t, http.StatusOK, nil)
		body = string(a.Body)
		if strings.Contains(body, `spark_engine_turns_total{status="finished"} 1`) || time.Now().After(deadline) {
			break
		}
	}
	for _, want := range []string{
		"spark_engine_ops_appended_total 3", // create, turn.start, turn.finish
		"spark_engine_fsync_batches_total 3",
		`spark_engine_turns_total{status="finished"} 1`,
		"spark_engine_fsync_batch_records_bucket",
		"spark_engine_fsync_seconds_bucket",
		`spark_engine_http_request_duration_seconds_count{route="POST /v1/moments",status="201"} 1`,
		`spark_engine_http_request_duration_seconds_count{route="unmatched",status="404"} 1`,
		"go_goroutines",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
}

func TestAccessLog(t *testing.T) {
	e := enginetest.Start(t, enginetest.WithoutSeat())
	var buf syncbuf.Buffer
	logger := slog.New(slog.NewTextHandler(&buf, nil))
	srv := httptest.NewServer(server.New(e.Engine, server.Options{Tokens: e.Engine.Tokens(), Logger: logger}))
	defer srv.Close()
	req, _ := http.NewRequest("POST", srv.URL+"/v1/moments", strings.NewReader(`{"kind":"note"}`))
	req.Header.Set("Authorization", "Bearer "+e.Token)
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	// The line is written as the handler returns, which may be a moment
	// after the client has the answer.
	var line string
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if line = buf.String(); strings.Contains(line, "msg=http") {
			break
		}
	}
	for _, want := range []string{"msg=http", "method=POST", `route="POST /v1/moments"`, "status=201", "duration=", "client=enginetest"} {
		if !strings.Contains(line, want) {
			t.Errorf("access log %q lacks %q", line, want)
		}
	}
}
