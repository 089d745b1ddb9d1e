package server_test

import (
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/sparkfamily/spark/engine"
	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/enginetest"
	"github.com/sparkfamily/spark/engine/pippa"
	"github.com/sparkfamily/spark/engine/pippa/pippatest"
	"github.com/sparkfamily/spark/internal/syncbuf"
)

// TestSecretsRedacted: a seat URL with a password, and an upstream error
// echoing the API key, used to be written into turn.error (kept in the log
// for good and served by /v1/ops) and into the engine's log. Neither the
// password, nor the key, nor a URL's query is now stored or logged, while
// the error still says what went wrong and where.
func TestSecretsRedacted(t *testing.T) {
	const (
		password = "hunter2-password"
		key      = "sk-live-ABCDEF0123456789"
		query    = "QUERY-SECRET-42"
	)
	fake := pippatest.New(t)
	fake.SetKey("the-right-key")
	fake.SetEcho(true)
	host := strings.TrimSuffix(strings.TrimPrefix(fake.URL(), "http://"), "/v1")

	for _, tc := range []struct {
		name, url string
		// says is what the stored error must still tell.
		says string
	}{
		{"KeyEchoed", "http://spark:" + password + "@" + host + "/v1", "401"},
		{"Unreachable", "http://spark:" + password + "@127.0.0.1:1/v1?key=" + query, "127.0.0.1:1"},
		{"QueryEchoed", "http://" + host + "/v1?api-key=" + query, "404"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logs syncbuf.Buffer
			e := enginetest.Start(t, enginetest.WithConfig(func(c *engine.Config) {
				c.Seats = []pippa.Config{{Name: "family", URL: tc.url, Model: pippatest.Model, Key: key, Timeout: 5 * time.Second}}
				c.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
				c.RetryAttempts = 2
				c.RetryBackoff = time.Millisecond
			}))
			m := createMoment(t, e, api.CreateMomentRequest{Caption: "a letter"})
			var turn api.TurnResponse
			call(t, e, "POST", "/v1/moments/"+m.ID+"/turns", api.StartTurnRequest{ClientRequestID: "turn-" + tc.name, Mode: api.ModePractical}).want(t, http.StatusAccepted, &turn)
			id := turn.Turn.ID
			deadline := time.Now().Add(15 * time.Second)
			for {
				call(t, e, "GET", "/v1/turns/"+id, nil).want(t, http.StatusOK, &turn)
				if turn.Turn.Status == api.TurnFailed {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("the turn did not fail: %+v", turn.Turn)
				}
				time.Sleep(20 * time.Millisecond)
			}
			t.Logf("turn.error: %s", turn.Turn.Error)
			if !strings.Contains(turn.Turn.Error, tc.says) {
				t.Errorf("turn.error %q no longer says %q", turn.Turn.Error, tc.says)
			}
			ops := string(call(t, e, "GET", "/v1/ops?limit=1000", nil).Body)
			for where, text := range map[string]string{"turn.error": turn.Turn.Error, "/v1/ops": ops, "the engine's log": logs.String()} {
				for _, secret := range []string{password, key, query} {
					if strings.Contains(text, secret) {
						t.Errorf("%s holds the secret %q:\n%.2000s", where, secret, text)
					}
				}
			}
		})
	}
}
