// Package faultproxy is, for tests, an HTTP proxy on 127.0.0.1 in front of
// a real engine that injects the trouble a bad link or a struggling server
// causes: request by request it forwards, answers an error itself, lets
// the engine commit and then loses the reply, or resets the connection.
// It is a fault injector, not a fake engine: whatever it forwards, the
// real engine answers.
package faultproxy

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"

	"github.com/sparkfamily/spark/api"
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
}

// New starts a proxy to the engine at engineURL, stopped when the test
// ends. decide, called under a lock once per request, says what to do
// with it; nil forwards everything.
func New(tb testing.TB, engineURL string, decide func(*http.Request) Fault) *Proxy {
	tb.Helper()
	u, err := url.Parse(engineURL)
	if err != nil {
		tb.Fatal(err)
	}
	p := &Proxy{tb: tb, target: u, decide: decide, tr: &http.Transport{MaxIdleConnsPerHost: 16}}
	p.srv = httptest.NewServer(p)
	tb.Cleanup(func() {
		p.srv.CloseClientConnections()
		p.srv.Close()
		p.tr.CloseIdleConnections()
	})
	return p
}

// URL is the proxy's address.
func (p *Proxy) URL() string { return p.srv.URL }

// Close stops the proxy's own listener.
func (p *Proxy) Close() { p.srv.Close() }

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
		p.tb.Errorf("fault proxy: hijack: %v", err)
		return
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		tc.SetLinger(0)
	}
	conn.Close()
}
