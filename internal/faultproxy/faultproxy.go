// Package faultproxy is, for tests (and spark-bench's weak links), an HTTP proxy on 127.0.0.1 in front of
// a real engine that injects the trouble a bad link or a struggling server
// causes: request by request it forwards, answers an error itself, lets
// the engine commit and then loses the reply, or resets the connection.
// It is a fault injector, not a fake engine: whatever it forwards, the
// real engine answers.
package faultproxy

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/sparkfamily/spark/engine/api"
)

// Kind is what the proxy does with one request.
type Kind int

const (
	Pass      Kind = iota // forward it and its answer
	Answer                // answer Status without forwarding
	DropReply             // forward it, let the engine commit, then close the connection unanswered
	Reset                 // reset the connection before forwarding anything
	ResetBody             // read part of the body, then reset the connection
)

// Fault is what to do with one request; the zero Fault forwards it.
type Fault struct {
	Kind Kind
	// For Answer: the status, the error body's code ("" is
	// injected_<status>) and message ("" names the status and path), a
	// Retry-After header, and HTML for a non-JSON body, like a proxy's
	// error page.
	Status     int
	Code       string
	Message    string
	RetryAfter string
	HTML       bool
}

// Proxy is the fault injector. It is an http.Handler too, for a test that
// serves it on a listener of its own.
type Proxy struct {
	tb     testing.TB
	target *url.URL
	srv    *httptest.Server
	tr     *http.Transport

	mu     sync.Mutex
	decide func(*http.Request) Fault

	// cutAfter, when above 0, is the most bytes a client connection may
	// send before it is reset (CutUploadsAfter); up counts the bytes every
	// client connection sent (BytesUp).
	cutAfter atomic.Int64
	up       atomic.Int64
}

// New starts a proxy to the engine at engineURL, stopped when the test
// ends. decide, called under a lock once per request, says what to do
// with it; nil forwards everything.
func New(tb testing.TB, engineURL string, decide func(*http.Request) Fault) *Proxy {
	tb.Helper()
	p, err := Start(engineURL, decide)
	if err != nil {
		tb.Fatal(err)
	}
	p.tb = tb
	tb.Cleanup(p.Stop)
	return p
}

// Start starts a proxy as New does, outside a test (spark-bench's links);
// the caller stops it with Stop.
func Start(engineURL string, decide func(*http.Request) Fault) (*Proxy, error) {
	u, err := url.Parse(engineURL)
	if err != nil {
		return nil, fmt.Errorf("fault proxy: %w", err)
	}
	p := &Proxy{target: u, decide: decide, tr: &http.Transport{MaxIdleConnsPerHost: 16}}
	p.srv = httptest.NewUnstartedServer(p)
	p.srv.Listener = &cutListener{Listener: p.srv.Listener, p: p}
	p.srv.Start()
	return p, nil
}

// Stop closes the proxy and every connection through it.
func (p *Proxy) Stop() {
	p.srv.CloseClientConnections()
	p.srv.Close()
	p.tr.CloseIdleConnections()
}

// URL is the proxy's address.
func (p *Proxy) URL() string { return p.srv.URL }

// Close stops the proxy's own listener.
func (p *Proxy) Close() { p.srv.Close() }

// CutUploadsAfter makes the proxy reset every client connection once it
// has sent n bytes (headers and bodies, all its requests together), as a
// weak link that drops: 0 stops cutting. Connections already open are
// cut by the new n too.
func (p *Proxy) CutUploadsAfter(n int64) { p.cutAfter.Store(n) }

// BytesUp is how many bytes the clients have sent the proxy.
func (p *Proxy) BytesUp() int64 { return p.up.Load() }

// cutListener counts what each client connection sends and cuts it.
type cutListener struct {
	net.Listener
	p *Proxy
}

func (l *cutListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &cutConn{Conn: c, p: l.p}, nil
}

type cutConn struct {
	net.Conn
	p    *Proxy
	mu   sync.Mutex
	sent int64
}

var errCut = errors.New("fault proxy: the connection was cut")

func (c *cutConn) Read(b []byte) (int, error) {
	c.mu.Lock()
	limit, sent := c.p.cutAfter.Load(), c.sent
	c.mu.Unlock()
	if limit > 0 {
		left := limit - sent
		if left <= 0 {
			if tc, ok := c.Conn.(*net.TCPConn); ok {
				tc.SetLinger(0)
			}
			c.Conn.Close()
			return 0, errCut
		}
		if int64(len(b)) > left {
			b = b[:left]
		}
	}
	n, err := c.Conn.Read(b)
	c.mu.Lock()
	c.sent += int64(n)
	c.mu.Unlock()
	c.p.up.Add(int64(n))
	return n, err
}

// SetDecide replaces the decide function.
func (p *Proxy) SetDecide(f func(*http.Request) Fault) {
	p.mu.Lock()
	p.decide = f
	p.mu.Unlock()
}

func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	f := Fault{}
	if p.decide != nil {
		f = p.decide(r)
	}
	p.mu.Unlock()
	switch f.Kind {
	case Answer:
		answer(w, r, f)
		return
	case Reset:
		p.resetConn(w)
		return
	case ResetBody:
		n := r.ContentLength / 2
		io.CopyN(io.Discard, r.Body, max(n, 1))
		p.resetConn(w)
		return
	}
	out := r.Clone(r.Context())
	out.URL.Scheme, out.URL.Host = p.target.Scheme, p.target.Host
	out.Host = p.target.Host
	out.RequestURI = ""
	if r.ContentLength == 0 {
		out.Body = nil
	}
	resp, err := p.tr.RoundTrip(out)
	if err != nil {
		http.Error(w, "proxy: "+err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	if f.Kind == DropReply {
		// The engine has answered, so it has committed; the client never
		// hears of it.
		io.Copy(io.Discard, resp.Body)
		p.resetConn(w)
		return
	}
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(resp.StatusCode)
	io.Copy(w, resp.Body)
}

// answer answers f's error without forwarding r.
func answer(w http.ResponseWriter, r *http.Request, f Fault) {
	io.Copy(io.Discard, r.Body)
	if f.RetryAfter != "" {
		w.Header().Set("Retry-After", f.RetryAfter)
	}
	if f.HTML {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(f.Status)
		fmt.Fprintf(w, "<html><body><h1>%d %s</h1></body></html>", f.Status, http.StatusText(f.Status))
		return
	}
	code, msg := f.Code, f.Message
	if code == "" {
		code = fmt.Sprintf("injected_%d", f.Status)
	}
	if msg == "" {
		msg = fmt.Sprintf("injected %d for %s", f.Status, r.URL.Path)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(f.Status)
	json.NewEncoder(w).Encode(api.ErrorBody{Error: &api.Error{Code: code, Message: msg}})
}

// resetConn closes the client's connection with a TCP reset.
func (p *Proxy) resetConn(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		if p.tb != nil {
			p.tb.Errorf("fault proxy: hijack: %v", err)
		}
		return
	}
	if cc, ok := conn.(*cutConn); ok {
		conn = cc.Conn
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		tc.SetLinger(0)
	}
	conn.Close()
}
