package client_test

import (
	"context"
	"testing"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/client"
	"github.com/sparkfamily/spark/engine/enginetest"
)

// TestWithMember: a call made with client.WithMember writes, with an admin
// token, for that member; without it, for the token's own.
func TestWithMember(t *testing.T) {
	eng := enginetest.Start(t, enginetest.WithoutSeat())
	c := client.New(eng.URL, eng.Token, nil)
	ctx := context.Background()
	m, _, err := c.CreateMoment(client.WithMember(ctx, "dad"), api.CreateMomentRequest{Kind: api.KindNote, Caption: "dad's"})
	if err != nil || m.Member != "dad" {
		t.Fatalf("CreateMoment for dad = %+v, %v; want dad's", m, err)
	}
	own, _, err := c.CreateMoment(ctx, api.CreateMomentRequest{Kind: api.KindNote, Caption: "mine"})
	if err != nil || own.Member != "enginetest" {
		t.Fatalf("CreateMoment = %+v, %v; want the token's own member", own, err)
	}
}
