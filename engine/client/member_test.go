package client_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/auth"
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

// TestClient_Me: Me says the member and scope of the client's token; an
// engine older than GET /v1/me answers 404, which Me returns as an
// *api.Error with Status 404, so the caller knows the member is unknown.
func TestClient_Me(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		eng := enginetest.Start(t, enginetest.WithoutSeat())
		mum := eng.AddMemberToken(t, "mums-laptop", "mum", auth.ScopeDevice)
		got, err := client.New(eng.URL, mum, nil).Me(context.Background())
		if err != nil || *got != (api.Me{Member: "mum", Scope: "device"}) {
			t.Fatalf("Me = %+v, %v; want mum, device", got, err)
		}
	})
	t.Run("ErrOlderEngine", func(t *testing.T) {
		old := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"error":{"code":"not_found","message":"there is no route GET /v1/me in the v1 contract"}}`)
		}))
		defer old.Close()
		got, err := client.New(old.URL, "spk_x", nil).Me(context.Background())
		if e, ok := api.AsError(err); got != nil || !ok || e.Status != http.StatusNotFound {
			t.Fatalf("Me on an older engine = %+v, %v; want a 404 *api.Error", got, err)
		}
	})
}
