package server_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sparkfamily/spark/engine"
	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/enginetest"
)

// TestTurnLimit_DeviceToken: a device token that starts new readings
// faster than the engine allows gets 429 too_many_readings with a
// Retry-After once its burst is spent, so a script cannot make hundreds of
// paid completions in a second (issue 25, item 7: 300 new turns in 0.4 s
// made 300). A repeat of a turn already started is never refused, another
// token keeps its own allowance, and an admin token is not limited.
func TestTurnLimit_DeviceToken(t *testing.T) {
	const burst = 5
	f := newFamily(t, enginetest.WithoutSeat(), enginetest.WithConfig(func(c *engine.Config) {
		c.TurnBurst, c.TurnEvery = burst, time.Hour
	}))
	m := f.moment(t, f.dad, "the gas bill")
	start := func(tok, rid string) answer {
		return f.as(t, tok, "POST", "/v1/moments/"+m.ID+"/turns", api.StartTurnRequest{ClientRequestID: rid, Mode: api.ModePractical})
	}
	for i := range burst {
		start(f.dad, "dad-"+strconv.Itoa(i)).want(t, http.StatusAccepted, nil)
	}
	refused := start(f.dad, "dad-more")
	refused.wantError(t, http.StatusTooManyRequests, api.CodeTooManyReadings)
	if s, err := strconv.Atoi(refused.Header.Get("Retry-After")); err != nil || s < 1 || s > 3600 {
		t.Errorf("Retry-After %q; want the seconds until the next reading is allowed", refused.Header.Get("Retry-After"))
	}
	start(f.dad, "dad-0").want(t, http.StatusOK, nil) // a repeat costs nothing
	start(f.kid, "kid-0").want(t, http.StatusAccepted, nil)
	for i := range 2 * burst {
		start(f.e.Token, "admin-"+strconv.Itoa(i)).want(t, http.StatusAccepted, nil)
	}
	if n := f.e.OpCount(t, api.OpTurnStart); n != burst+1+2*burst {
		t.Errorf("%d turns started; want %d", n, burst+1+2*burst)
	}
}

// TestTurnLimit_DailyQuota: each member has a daily quota of new
// readings (serve --turns-per-day), on by default; past it the member is
// refused 429 too_many_readings until midnight UTC, while another member
// keeps theirs. (Two tokens of one member share it:
// engine.TestTurnLimit_MemberSharesQuota.)
func TestTurnLimit_DailyQuota(t *testing.T) {
	const perDay = 3
	f := newFamily(t, enginetest.WithoutSeat(), enginetest.WithConfig(func(c *engine.Config) {
		c.TurnsPerDay = perDay
	}))
	m := f.moment(t, f.dad, "the gas bill")
	start := func(tok, rid string) answer {
		return f.as(t, tok, "POST", "/v1/moments/"+m.ID+"/turns", api.StartTurnRequest{ClientRequestID: rid, Mode: api.ModePractical})
	}
	for i := range perDay {
		start(f.dad, "dad-"+strconv.Itoa(i)).want(t, http.StatusAccepted, nil)
	}
	refused := start(f.dad, "dad-more")
	e := refused.wantError(t, http.StatusTooManyRequests, api.CodeTooManyReadings)
	if !strings.Contains(e.Message, "today") {
		t.Errorf("the refusal does not say the day's readings are spent: %q", e.Message)
	}
	if s, err := strconv.Atoi(refused.Header.Get("Retry-After")); err != nil || s < 1 || s > 24*3600 {
		t.Errorf("Retry-After %q; want the seconds until midnight UTC", refused.Header.Get("Retry-After"))
	}
	start(f.kid, "kid-0").want(t, http.StatusAccepted, nil)
}
