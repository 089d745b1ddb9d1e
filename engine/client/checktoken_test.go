package client_test

import (
	"context"
	"errors"
	"testing"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/client"
	"github.com/sparkfamily/spark/engine/enginetest"
	"github.com/sparkfamily/spark/internal/retry"
)

func TestClient_CheckToken(t *testing.T) {
	eng := enginetest.Start(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name, token string
		refused     bool
	}{
		{"good token", eng.Token, false},
		{"bad token", "spk_not-a-token", true},
		{"no token", "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := client.New(eng.URL, tc.token, client.NewHTTPClient(client.HTTPOptions{}))
			h, err := c.Health(ctx)
			if err != nil {
				t.Fatal(err)
			}
			err = c.CheckToken(ctx, h.Seq)
			var ae *api.Error
			if refused := errors.As(err, &ae) && retry.Refused(ae.Status); refused != tc.refused || !tc.refused && err != nil {
				t.Errorf("CheckToken = %v, want refused %v", err, tc.refused)
			}
		})
	}
}
