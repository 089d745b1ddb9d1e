package push_test

import (
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
)

// lossyProxy sits in front of a real engine on 127.0.0.1 and loses replies:
// a share of requests is forwarded, committed by the engine, and then its
// connection is closed unanswered; another share gets a 503 without being
// forwarded. It is a fault injector, not a fake engine: whatever it
// forwards, the real engine answers.
type lossyProxy struct {
	target string
	srv    *httptest.Server
	tr     *http.Transport

	mu       sync.Mutex
	lossRate float64
	rnd      *rand.Rand
	lost     atomic.Int64
	refused  atomic.Int64
}

func newLossyProxy(tb testing.TB, target string, lossRate float64, seed uint64) *lossyProxy {
	p := &lossyProxy{target: target, lossRate: lossRate, rnd: rand.New(rand.NewPCG(seed, 7)), tr: &http.Transport{MaxIdleConnsPerHost: 16}}
	p.srv = httptest.NewServer(p)
	tb.Cleanup(func() {
		p.srv.CloseClientConnections()
		p.srv.Close()
		p.tr.CloseIdleConnections()
	})
	return p
}

func (p *lossyProxy) URL() string { return p.srv.URL }

func (p *lossyProxy) setLoss(rate float64) {
	p.mu.Lock()
	p.lossRate = rate
	p.mu.Unlock()
}

func (p *lossyProxy) roll() (drop, refuse bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	x := p.rnd.Float64()
	return x < p.lossRate, x >= p.lossRate && x < 1.5*p.lossRate
}

func (p *lossyProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	drop, refuse := p.roll()
	if refuse && r.URL.Path != "/v1/health" {
		p.refused.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = io.WriteString(w, `{"error":{"code":"unavailable","message":"the proxy is busy"}}`)
		return
	}
	out, err := http.NewRequestWithContext(r.Context(), r.Method, p.target+r.URL.RequestURI(), r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	out.Header = r.Header.Clone()
	out.ContentLength = r.ContentLength
	resp, err := p.tr.RoundTrip(out)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	if drop {
		// The engine has answered (and so committed); the caller never
		// hears it.
		_, _ = io.Copy(io.Discard, resp.Body)
		p.lost.Add(1)
		if hj, ok := w.(http.Hijacker); ok {
			if c, _, err := hj.Hijack(); err == nil {
				_ = c.Close()
				return
			}
		}
		panic(http.ErrAbortHandler)
	}
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = io.Copy(w, resp.Body)
}
