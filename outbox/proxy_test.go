package outbox

import (
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/internal/faultproxy"
)

// The drain's tests put a fault injector (internal/faultproxy) between the
// drain and a real engine on 127.0.0.1.
type fault = faultproxy.Fault

const (
	pass      = faultproxy.Pass
	answer    = faultproxy.Answer
	dropReply = faultproxy.DropReply
	reset     = faultproxy.Reset
	resetBody = faultproxy.ResetBody
)

// faultProxy is a faultproxy.Proxy that also records the route of every
// request, in arrival order.
type faultProxy struct {
	*faultproxy.Proxy

	mu     sync.Mutex
	decide func(r *http.Request) fault
	seen   []string
}

func newFaultProxy(tb testing.TB, engineURL string, decide func(*http.Request) fault) *faultProxy {
	tb.Helper()
	p := &faultProxy{decide: decide}
	p.Proxy = faultproxy.New(tb, engineURL, func(r *http.Request) fault {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.seen = append(p.seen, route(r))
		if p.decide == nil {
			return fault{}
		}
		return p.decide(r)
	})
	return p
}

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

// contractOnly makes decide's proxy an engine of the contract alone: it
// answers OPTIONS 405, as an engine without resumable uploads does, so
// every upload is the contract's PUT (the path tests that count requests
// by route are written for).
func contractOnly(decide func(*http.Request) fault) func(*http.Request) fault {
	return func(r *http.Request) fault {
		if r.Method == http.MethodOptions {
			return fault{Kind: answer, Status: http.StatusMethodNotAllowed, Code: "method_not_allowed"}
		}
		if decide == nil {
			return fault{}
		}
		return decide(r)
	}
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
