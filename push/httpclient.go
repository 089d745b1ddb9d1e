package push

import (
	"net/http"

	"github.com/sparkfamily/spark/client"
)

// HTTPClient is the HTTP client a push uses: a connection per worker kept
// open, and large write buffers, since a push streams whole originals one
// after the other. Connecting and waiting for an answer are bounded; a whole
// upload is not (an original may take minutes on a slow link).
func HTTPClient(workers int) *http.Client {
	if workers <= 0 {
		workers = defaultWorkers
	}
	return client.NewHTTPClient(client.HTTPOptions{
		IdleConnsPerHost: workers + 1,
		WriteBufferSize:  256 << 10,
		ReadBufferSize:   64 << 10,
	})
}
