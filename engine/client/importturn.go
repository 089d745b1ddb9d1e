package client

import (
	"context"
	"fmt"
	"net/http"

	"github.com/sparkfamily/spark/engine/api"
)

// ImportTurn copies a finished reading to the engine as it is
// (POST /v1/import/turns, an extension): created is false when the engine
// already held it.
func (c *Client) ImportTurn(ctx context.Context, in api.ImportTurnRequest) (*api.Turn, bool, error) {
	var out api.TurnResponse
	_, err := c.call(ctx, http.MethodPost, api.ImportTurnPath, fmt.Sprintf("import reading %s of moment %s", in.ID, in.MomentID), in, &out)
	if err != nil {
		return nil, false, err
	}
	return out.Turn, out.Created != nil && *out.Created, nil
}
