package engine

import (
	"context"
	"fmt"
	"testing"

	"github.com/sparkfamily/spark/engine/api"
)

// TestRoomForTurns_UnauthoredAreTheOwners: the turns the engine starts
// itself (no actor, no author) count as the moment's own member's, as do
// the member's own from any of their tokens; another member's are counted
// apart and never take the owner's room.
func TestRoomForTurns_UnauthoredAreTheOwners(t *testing.T) {
	e := openEngine(t, t.TempDir(), func(c *Config) { c.TurnBurst = 1000 })
	dad := WithActor(ctxT(t), Actor{Name: "dad"})
	mo, _, err := e.CreateMoment(dad, api.CreateMomentRequest{Kind: api.KindNote, Caption: "the boiler"})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	start := func(ctx context.Context) error {
		n++
		_, _, err := e.StartTurn(ctx, mo.ID, api.StartTurnRequest{ClientRequestID: fmt.Sprintf("turn-%d", n), Mode: api.ModePractical})
		return err
	}
	const engines = 60
	for range engines {
		if err := start(ctxT(t)); err != nil {
			t.Fatal(err)
		}
	}
	kid := WithActor(ctxT(t), Actor{Name: "kid"})
	for range api.MaxOthersTurnsPerMoment {
		if err := start(kid); err != nil {
			t.Fatalf("the kid's readings of dad's moment: %v", err)
		}
	}
	wantCode(t, start(kid), api.CodeTooManyTurns)
	for i := range api.MaxTurnsPerMoment - engines {
		if err := start(dad); err != nil {
			t.Fatalf("dad's reading %d after the engine's %d: %v", i+1, engines, err)
		}
	}
	wantCode(t, start(dad), api.CodeTooManyTurns)
	wantCode(t, start(ctxT(t)), api.CodeTooManyTurns)
}
