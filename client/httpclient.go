package client

import (
	"cmp"
	"net"
	"net/http"
	"time"
)

// HTTPOptions tune NewHTTPClient. A zero field takes its default.
type HTTPOptions struct {
	// DialTimeout bounds connecting and the TLS handshake: 15 s.
	DialTimeout time.Duration
	// HeaderTimeout bounds the wait for an answer's headers once the
	// request is sent: 2 minutes.
	HeaderTimeout time.Duration
	// IdleConnsPerHost is how many connections to the engine are kept
	// open between requests: net/http's default, 2.
	IdleConnsPerHost int
	// WriteBufferSize and ReadBufferSize are the connection buffers:
	// net/http's default, 4 KB.
	WriteBufferSize, ReadBufferSize int
}

// NewHTTPClient is the HTTP client for talking to an engine, for New: it
// bounds connecting and waiting for an answer's headers, so a hung engine
// fails a call instead of holding it forever, but sets no overall limit,
// since an original may take minutes to upload or download on a slow link.
func NewHTTPClient(o HTTPOptions) *http.Client {
	dial := cmp.Or(o.DialTimeout, 15*time.Second)
	return &http.Client{Transport: &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: dial, KeepAlive: 30 * time.Second}).DialContext,
		TLSHandshakeTimeout:   dial,
		ResponseHeaderTimeout: cmp.Or(o.HeaderTimeout, 2*time.Minute),
		IdleConnTimeout:       90 * time.Second,
		MaxIdleConnsPerHost:   o.IdleConnsPerHost,
		WriteBufferSize:       o.WriteBufferSize,
		ReadBufferSize:        o.ReadBufferSize,
		ForceAttemptHTTP2:     true,
	}}
}
