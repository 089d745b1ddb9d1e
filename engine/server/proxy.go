package server

import (
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"

	"github.com/sparkfamily/spark/engine/api"
)

// Behind a reverse proxy, every connection comes from the proxy's address,
// so the family's devices would share one client's room (conns.go). When
// the engine is told to trust the proxy (HTTPOptions.TrustedProxies,
// `spark-engine serve --trusted-proxy`), and only then, a request that
// comes over a connection from it is counted as its client's: the address
// the proxy forwards as the last hop of X-Forwarded-For, the one that proxy
// added itself (what comes before it is only what the client claimed). The
// proxy's own connections are not capped, since they carry every client's
// requests and the proxy pools them; instead each forwarded client may
// have MaxConnsPerClient requests at work at once, and one more is
// answered 429 too_many_requests with a Retry-After. Without that trust,
// X-Forwarded-For is never read.

// forwarded counts the requests at work of each client behind a trusted
// proxy. Its methods are safe for concurrent use; its memory is bounded by
// the requests at work.
type forwarded struct {
	trusted []netip.Prefix
	max     int
	log     *slog.Logger

	mu       sync.Mutex
	busy     map[netip.Addr]int
	refused  int       // requests refused since the last warning
	lastWarn time.Time // when the last warning was logged
}

// client is whose request r is, when it came through a trusted proxy: the
// address the proxy forwards, or the proxy's own when it forwards none.
func (f *forwarded) client(r *http.Request) (netip.Addr, bool) {
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil || !trusts(f.trusted, ap.Addr().Unmap()) {
		return netip.Addr{}, false
	}
	if a, ok := lastHop(r.Header); ok {
		return a, true
	}
	return ap.Addr().Unmap(), true
}

// lastHop is the last address of the last X-Forwarded-For header.
func lastHop(h http.Header) (netip.Addr, bool) {
	vals := h.Values("X-Forwarded-For")
	if len(vals) == 0 {
		return netip.Addr{}, false
	}
	last := vals[len(vals)-1]
	if i := strings.LastIndexByte(last, ','); i >= 0 {
		last = last[i+1:]
	}
	last = strings.TrimSpace(last)
	if a, err := netip.ParseAddr(last); err == nil {
		return a.Unmap(), true
	}
	if ap, err := netip.ParseAddrPort(last); err == nil {
		return ap.Addr().Unmap(), true
	}
	return netip.Addr{}, false
}

// enter counts one more request of client at work, or refuses it (and
// warns now and then) when the client already has f.max.
func (f *forwarded) enter(client netip.Addr) bool {
	f.mu.Lock()
	if f.busy[client] < f.max {
		f.busy[client]++
		f.mu.Unlock()
		return true
	}
	f.refused++
	refused, warn := f.refused, time.Since(f.lastWarn) >= capWarnEvery
	if warn {
		f.lastWarn, f.refused = time.Now(), 0
	}
	f.mu.Unlock()
	if warn {
		f.log.Warn("refused requests from a client behind the trusted proxy that already has the most at work the engine allows at once",
			"client", client.String(), "max", f.max, "refused", refused)
	}
	return false
}

// leave counts a request of client done.
func (f *forwarded) leave(client netip.Addr) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.busy[client]--; f.busy[client] <= 0 {
		delete(f.busy, client)
	}
}

// tooManyRequests is the answer to a forwarded client past its room.
func (f *forwarded) tooManyRequests(client netip.Addr) *api.Error {
	e := api.Errorf(api.CodeTooManyRequests, "%s already has %d requests at work on the engine, the most one client may have at once; send this one again in a moment", client, f.max)
	e.RetryAfter = time.Second
	return e
}

// trusts reports whether a is in one of the prefixes.
func trusts(trusted []netip.Prefix, a netip.Addr) bool {
	if !a.IsValid() {
		return false
	}
	for _, p := range trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// addrOf is the IP address of a connection's remote address.
func addrOf(a net.Addr) netip.Addr {
	if tcp, ok := a.(*net.TCPAddr); ok {
		return tcp.AddrPort().Addr().Unmap()
	}
	ap, err := netip.ParseAddrPort(a.String())
	if err != nil {
		return netip.Addr{}
	}
	return ap.Addr().Unmap()
}

// ParseTrustedProxies reads the value of `serve --trusted-proxy`: an IP
// address or a CIDR prefix, or several separated by commas.
func ParseTrustedProxies(s string) ([]netip.Prefix, error) {
	var ps []netip.Prefix
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if strings.Contains(f, "/") {
			p, err := netip.ParsePrefix(f)
			if err != nil {
				return nil, fmt.Errorf("%q is not an IP address or a CIDR prefix (like 127.0.0.1 or 10.0.0.0/8)", f)
			}
			ps = append(ps, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(f)
		if err != nil {
			return nil, fmt.Errorf("%q is not an IP address or a CIDR prefix (like 127.0.0.1 or 10.0.0.0/8)", f)
		}
		a = a.Unmap()
		ps = append(ps, netip.PrefixFrom(a, a.BitLen()))
	}
	return ps, nil
}
