package push_test

import (
	"math/rand/v2"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/sparkfamily/spark/internal/faultproxy"
)

// lossyProxy sits in front of a real engine (internal/faultproxy) and
// loses replies: a share of requests is forwarded, committed by the
// engine, and then its connection is cut unanswered; another share gets a
// 503 without being forwarded.
type lossyProxy struct {
	*faultproxy.Proxy

	mu       sync.Mutex
	lossRate float64
	rnd      *rand.Rand
	lost     atomic.Int64
	refused  atomic.Int64
}

func newLossyProxy(tb testing.TB, target string, lossRate float64, seed uint64) *lossyProxy {
	p := &lossyProxy{lossRate: lossRate, rnd: rand.New(rand.NewPCG(seed, 7))}
	p.Proxy = faultproxy.New(tb, target, p.decide)
	return p
}

func (p *lossyProxy) setLoss(rate float64) {
	p.mu.Lock()
	p.lossRate = rate
	p.mu.Unlock()
}

// decide rolls for one request.
func (p *lossyProxy) decide(r *http.Request) faultproxy.Fault {
	p.mu.Lock()
	defer p.mu.Unlock()
	x := p.rnd.Float64()
	switch {
	case x < p.lossRate:
		p.lost.Add(1)
		return faultproxy.Fault{Kind: faultproxy.DropReply}
	case x < 1.5*p.lossRate && r.URL.Path != "/v1/health":
		p.refused.Add(1)
		return faultproxy.Fault{Kind: faultproxy.Answer, Status: http.StatusServiceUnavailable, Code: "unavailable", Message: "the proxy is busy"}
	}
	return faultproxy.Fault{}
}
