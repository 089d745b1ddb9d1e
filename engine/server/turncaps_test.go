package server_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/sparkfamily/spark/engine"
	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/auth"
	"github.com/sparkfamily/spark/engine/enginetest"
)

// TestTurnCap_OthersNeverSpendTheOwners: any member may ask for readings
// of any moment, but another member's requests never use up the moment's
// own member's cap (issue 32, item 5: another device started 100 readings
// on a member's moment, and the owner's own request then got 409
// too_many_turns). The other member is refused at their own, smaller cap;
// the owner keeps all of api.MaxTurnsPerMoment for their own, and a third
// member has a cap of their own too, so the moment stays bounded.
func TestTurnCap_OthersNeverSpendTheOwners(t *testing.T) {
	f := newFamily(t, enginetest.WithoutSeat(), enginetest.WithConfig(func(c *engine.Config) {
		c.TurnBurst = 10 * api.MaxTurnsPerMoment // the rate is not what this tests
	}))
	mum := f.e.AddToken(t, "mum", auth.ScopeDevice)
	m := f.moment(t, f.dad, "the gas bill")
	start := func(tok, rid string) answer {
		return f.as(t, tok, "POST", "/v1/moments/"+m.ID+"/turns", api.StartTurnRequest{ClientRequestID: rid, Mode: api.ModePractical})
	}
	startAll := func(tok, who string, most int) (started int, refused answer) {
		for i := range most + 1 {
			a := start(tok, who+"-"+strconv.Itoa(i))
			if a.Status != http.StatusAccepted {
				return i, a
			}
		}
		t.Fatalf("%s started %d readings on one moment and was never refused", who, most+1)
		return
	}

	kid, refused := startAll(f.kid, "kid", api.MaxTurnsPerMoment)
	e := refused.wantError(t, http.StatusConflict, api.CodeTooManyTurns)
	if kid != api.MaxOthersTurnsPerMoment {
		t.Errorf("another member started %d readings on dad's moment before being refused; want %d", kid, api.MaxOthersTurnsPerMoment)
	}
	if !strings.Contains(e.Message, "another family member") {
		t.Errorf("the refusal does not say the moment is another member's: %q", e.Message)
	}
	f.as(t, f.kid, "POST", "/v1/moments/"+m.ID+"/jobs", api.StartJobRequest{ID: "kid-job"}).wantError(t, http.StatusConflict, api.CodeTooManyTurns)
	start(f.kid, "kid-0").want(t, http.StatusOK, nil) // a repeat still answers

	// The owner's own next request is never refused for the kid's.
	dad, refused := startAll(f.dad, "dad", api.MaxTurnsPerMoment)
	refused.wantError(t, http.StatusConflict, api.CodeTooManyTurns)
	if dad != api.MaxTurnsPerMoment {
		t.Errorf("dad started %d readings on his own moment after the kid's %d; want all %d of his own", dad, kid, api.MaxTurnsPerMoment)
	}
	// A third member's cap is their own, spent by neither.
	m3, _ := startAll(mum, "mum", api.MaxTurnsPerMoment)
	if m3 != api.MaxOthersTurnsPerMoment {
		t.Errorf("mum started %d readings on dad's moment; want %d", m3, api.MaxOthersTurnsPerMoment)
	}
	if n, want := f.e.OpCount(t, api.OpTurnStart), api.MaxTurnsPerMoment+2*api.MaxOthersTurnsPerMoment; n != want {
		t.Errorf("the moment holds %d turns; want %d", n, want)
	}
	// An admin token keeps the whole cap for its own, as the owner does.
	admin, _ := startAll(f.e.Token, "admin", api.MaxTurnsPerMoment)
	if admin != api.MaxTurnsPerMoment {
		t.Errorf("an admin started %d readings on dad's moment; want %d", admin, api.MaxTurnsPerMoment)
	}
}
