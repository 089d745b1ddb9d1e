package app

import (
	"context"

	"github.com/sparkfamily/spark/client"
)

// checkToken tests the client's token with the cheapest call that needs
// one: the log's ops after seq, the engine's last (so none). Listing the
// phrases would do too, but costs the whole list on every status poll.
func checkToken(ctx context.Context, cl *client.Client, seq uint64) error {
	_, _, err := cl.Ops(ctx, seq, 1)
	return err
}
