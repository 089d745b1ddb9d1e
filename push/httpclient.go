package push

import (
	"net"
	"net/http"
	"time"
)

// HTTPClient is the HTTP client a push uses: a connection per worker kept
// open, and large write buffers, since a push streams whole originals one
// after the other. Connecting and waiting for an answer are bounded; a whole
// upload is not (an original may take minutes on a slow link).
func HTTPClient(workers int) *http.Client {
	if workers <= 0 {
		workers = defaultWorkers
	}
	return &http.Client{Transport: &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: 15 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		TLSHandshakeTimeout:   15 * time.Second,
		ResponseHeaderTimeout: 2 * time.Minute,
		IdleConnTimeout:       90 * time.Second,
		MaxIdleConnsPerHost:   workers + 1,
		WriteBufferSize:       256 << 10,
		ReadBufferSize:        64 << 10,
		ForceAttemptHTTP2:     true,
	}}
}
