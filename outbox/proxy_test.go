package outbox

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/sparkfamily/spark/api"
)

// faultKind is what the fault proxy does with one request.
type faultKind int

const (
	pass      faultKind = iota // forward it and its answer
	answer                     // answer Status without forwarding
	dropReply                  // forward it, let the engine commit, then close the connection unanswered
	reset                      // reset the connection before forwarding anything
	resetBody                  // read part of the body, then reset the connection
)

type fault struct {
	kind       faultKind
	status     int
	code       string
	retryAfter string
	html       bool // answer a non-JSON body, like a proxy's error page
}

// faultProxy sits between the drain and a real engine on 127.0.0.1 and
// injects the trouble a bad link or a struggling server causes. It is a
// fault injector, not a fake engine: whatever it forwards, the real engine
// answers.
type faultProxy struct {
	tb     testing.TB
	target *url.URL
	srv    *httptest.Server
	tr     *http.Transport

	mu     sync.Mutex
	decide func(r *http.Request) fault
	seen   []string // route of every request, in arrival order
}

func newFaultProxy(tb testing.TB, engineURL string, decide func(*http.Request) fault) *faultProxy {
	tb.Helper()
	u, err := url.Parse(engineURL)
	if err != nil {
		tb.Fatal(err)
	}
	p := &faultProxy{tb: tb, target: u, decide: decide, tr: &http.Transport{MaxIdleConnsPerHost: 16}}
	p.srv = httptest.NewServer(p)
	tb.Cleanup(func() {
		p.srv.CloseClientConnections()
		p.srv.Close()
		p.tr.CloseIdleConnections()
	})
	return p
}

func (p *faultProxy) URL() string { return p.srv.URL }

func (p *faultProxy) setDecide(f func(*http.Request) fault) {
	p.mu.Lock()
	p.decide = f
	p.mu.Unlock()
}

func (p *faultProxy) requests() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.seen...)
}

func (p *faultProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	p.seen = append(p.seen, route(r))
	f := fault{}
	if p.decide != nil {
		f = p.decide(r)
	}
	p.mu.Unlock()
	switch f.kind {
	case answer:
		io.Copy(io.Discard, r.Body)
		if f.retryAfter != "" {
			w.Header().Set("Retry-After", f.retryAfter)
		}
		if f.html {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(f.status)
			fmt.Fprintf(w, "<html><body><h1>%d %s</h1></body></html>", f.status, http.StatusText(f.status))
			return
		}
		code := f.code
		if code == "" {
			code = fmt.Sprintf("injected_%d", f.status)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(f.status)
		json.NewEncoder(w).Encode(api.ErrorBody{Error: &api.Error{Code: code, Message: fmt.Sprintf("injected %d for %s", f.status, r.URL.Path)}})
		return
	case reset:
		p.resetConn(w)
		return
	case resetBody:
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
	if f.kind == dropReply {
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

// resetConn closes the client's connection with a TCP reset.
func (p *faultProxy) resetConn(w http.ResponseWriter) {
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

// route names the contract route of a request, for fault rules.
func route(r *http.Request) string {
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/v1/moments":
		return StepCreate
	case r.Method == http.MethodPut && r.URL.Query().Get("role") == api.RoleCopy:
		return StepCopy
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/turns"):
		return StepTurn
	case r.Method == http.MethodPut && r.URL.Query().Get("role") == api.RoleOriginal:
		return StepOriginal
	}
	return r.Method + " " + r.URL.Path
}
