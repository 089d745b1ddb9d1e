package push

import (
	"net/http"

	"github.com/sparkfamily/spark/engine/client"
)

// HTTPClient is the HTTP client a push uses: client.NewHTTPClient's, with
// its bounds (a body that drips fails; answers are capped; no redirect
// elsewhere), a connection per worker kept open, and large write buffers,
// since a push streams whole originals one after the other. A body that
// stalls is the push's to end (Options.StallAfter, ErrStalled, not asked
// again): the client's own bounds on a body are twice the default, so
// that they never cut a stalled request first and have it asked again.
func HTTPClient(workers int) *http.Client {
	if workers <= 0 {
		workers = defaultWorkers
	}
	return client.NewHTTPClient(client.HTTPOptions{
		IdleConnsPerHost: workers + 1,
		WriteBufferSize:  256 << 10,
		ReadBufferSize:   64 << 10,
		BodyIdle:         2 * DefaultStallAfter,
		BodyGrace:        2 * DefaultStallAfter,
	})
}
