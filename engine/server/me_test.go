package server_test

import (
	"net/http"
	"testing"

	"github.com/sparkfamily/spark/engine/api"
)

// TestMe (issue 32): GET /v1/me says which family member a token acts for
// and its scope, over HTTP on loopback: each of Dad's computers is dad,
// Mum's token mum, the admin token its own member, or the member its
// Spark-Member header names. A device's header changes nothing, and
// without a token the route answers 401 like every other.
func TestMe(t *testing.T) {
	h := newHousehold(t)
	for _, tc := range []struct {
		name, tok string
		header    []string
		want      api.Me
	}{
		{"DadsLaptop", h.laptop, nil, api.Me{Member: "dad", Scope: "device"}},
		{"DadsDesktop", h.desktop, nil, api.Me{Member: "dad", Scope: "device"}},
		{"Mum", h.mum, nil, api.Me{Member: "mum", Scope: "device"}},
		{"MumsHeaderIgnored", h.mum, []string{api.MemberHeader, "dad"}, api.Me{Member: "mum", Scope: "device"}},
		{"Admin", h.e.Token, nil, api.Me{Member: "enginetest", Scope: "admin"}},
		{"AdminForDad", h.e.Token, []string{api.MemberHeader, "dad"}, api.Me{Member: "dad", Scope: "admin"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got api.Me
			h.asWith(t, tc.tok, "GET", api.MePath, nil, tc.header...).want(t, http.StatusOK, &got)
			if got != tc.want {
				t.Errorf("GET /v1/me = %+v, want %+v", got, tc.want)
			}
		})
	}
	t.Run("ErrNoToken", func(t *testing.T) {
		call(t, h.e, "GET", api.MePath, nil, "Authorization", "").wantError(t, http.StatusUnauthorized, api.CodeUnauthorized)
	})
	t.Run("ErrUnknownToken", func(t *testing.T) {
		h.as(t, "spk_nobody", "GET", api.MePath, nil).wantError(t, http.StatusUnauthorized, api.CodeUnauthorized)
	})
}
