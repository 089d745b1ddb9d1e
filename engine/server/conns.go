package server

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"time"
)

// The engine's connections (NewHTTPServer's listener). One client address
// holds at most MaxConnsPerClient connections at once, so that one client
// cannot take every goroutine and file descriptor. But a connection is
// cheap to open and a token is not: a connection counts as a token
// holder's only once a request on it showed a valid token (the server's
// authenticate says so, through authenticated). Until then it is
// unauthenticated, and
//
//   - it waits for its next request UnauthenticatedIdleTimeout (seconds),
//     not IdleTimeout (minutes), and an answer 401 closes it at once
//     (guardWriter);
//   - when its address is at the cap, a new connection takes its place:
//     the connection that has waited unauthenticated the longest (not one
//     whose request is at work) is closed.
//
// So connections that never showed a token cannot keep a token holder
// out, whatever their number (issue 32, item 6: 64 idle connections that
// had each been answered 401 held an address's room for 2 minutes,
// renewable); only token holders' own connections fill an address's room.
// A trusted proxy's connections are not counted here: they carry every
// client's requests, which are counted per client as they come
// (proxy.go).

// capListener hands out the connections of ln as capConns, closing, as
// soon as it is accepted, one from a client address whose room is taken
// by token holders.
type capListener struct {
	net.Listener
	max        int // 0: no cap (the app's own loopback engine)
	unauthIdle time.Duration
	trusted    []netip.Prefix
	log        *slog.Logger

	mu       sync.Mutex
	open     map[string][]*capConn // the counted connections, by client address
	refused  int                   // connections closed since the last warning
	lastWarn time.Time             // when the last warning was logged
}

// capWarnEvery bounds how often the cap is logged.
const capWarnEvery = 10 * time.Second

func (l *capListener) Accept() (net.Conn, error) {
	for {
		nc, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		c := &capConn{Conn: nc, l: l, host: clientHost(nc.RemoteAddr()), since: time.Now()}
		if l.max <= 0 || trusts(l.trusted, addrOf(nc.RemoteAddr())) {
			return c, nil
		}
		l.mu.Lock()
		var victim *capConn
		if len(l.open[c.host]) >= l.max {
			victim = l.longestUnauthenticated(c.host)
			if victim == nil {
				l.refuse(c)
				continue
			}
			l.forget(victim)
		}
		c.counted = true
		l.open[c.host] = append(l.open[c.host], c)
		l.mu.Unlock()
		if victim != nil {
			victim.Close()
		}
		return c, nil
	}
}

// refuse closes c, whose address's room is all token holders', and warns
// now and then. The caller holds l.mu, which refuse releases.
func (l *capListener) refuse(c *capConn) {
	l.refused++
	warn := time.Since(l.lastWarn) >= capWarnEvery
	refused := l.refused
	if warn {
		l.lastWarn, l.refused = time.Now(), 0
	}
	l.mu.Unlock()
	c.Conn.Close()
	if warn {
		l.log.Warn("closed connections from a client that already holds the most the engine allows at once",
			"client", c.host, "max", l.max, "closed", refused)
	}
}

// longestUnauthenticated is the connection of host that has waited the
// longest for a request without ever showing a valid token, nil when
// every one is a token holder's or at work. The caller holds l.mu.
func (l *capListener) longestUnauthenticated(host string) *capConn {
	var v *capConn
	for _, c := range l.open[host] {
		if !c.authed && !c.busy && (v == nil || c.since.Before(v.since)) {
			v = c
		}
	}
	return v
}

// forget takes c out of its address's count. The caller holds l.mu.
func (l *capListener) forget(c *capConn) {
	if !c.counted {
		return
	}
	c.counted = false
	conns := l.open[c.host]
	for i, o := range conns {
		if o == c {
			conns[i] = conns[len(conns)-1]
			conns = conns[:len(conns)-1]
			break
		}
	}
	if len(conns) == 0 {
		delete(l.open, c.host)
	} else {
		l.open[c.host] = conns
	}
}

// connState follows each connection through net/http (http.Server's
// ConnState): an unauthenticated one that goes idle is closed after
// unauthIdle unless a request comes first.
func (l *capListener) connState(nc net.Conn, s http.ConnState) {
	c, ok := nc.(*capConn)
	if !ok {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	switch s {
	case http.StateActive:
		c.busy = true
		c.waits++
	case http.StateIdle:
		c.busy = false
		c.since = time.Now()
		c.waits++
		if !c.authed {
			waits := c.waits
			time.AfterFunc(l.unauthIdle, func() { l.closeIdle(c, waits) })
		}
	}
}

// closeIdle closes c when it still waits, unauthenticated, for the
// request it waited for at its wait number waits.
func (l *capListener) closeIdle(c *capConn, waits int) {
	l.mu.Lock()
	still := c.waits == waits && !c.busy && !c.authed
	l.mu.Unlock()
	if still {
		c.Close()
	}
}

// connKey is the context key of a request's *capConn (http.Server's
// ConnContext).
type connKey struct{}

func (l *capListener) connContext(ctx context.Context, nc net.Conn) context.Context {
	if c, ok := nc.(*capConn); ok {
		return context.WithValue(ctx, connKey{}, c)
	}
	return ctx
}

// authenticated marks the connection of a request that showed a valid
// token as a token holder's: it keeps IdleTimeout, and its place.
func authenticated(ctx context.Context) {
	if c, ok := ctx.Value(connKey{}).(*capConn); ok {
		c.l.mu.Lock()
		c.authed = true
		c.l.mu.Unlock()
	}
}

// clientHost is the IP address of a remote address ("" when it has none).
func clientHost(a net.Addr) string {
	if tcp, ok := a.(*net.TCPAddr); ok {
		return tcp.IP.String()
	}
	host, _, err := net.SplitHostPort(a.String())
	if err != nil {
		return ""
	}
	return host
}

// capConn is a connection the listener counts; it gives its place back
// when closed.
type capConn struct {
	net.Conn
	l     *capListener
	host  string
	close sync.Once

	// Guarded by l.mu.
	counted bool      // in l.open
	authed  bool      // a request on it showed a valid token
	busy    bool      // a request on it is at work
	since   time.Time // when it began to wait for its next request
	waits   int       // counts its waits, so that a stale timer closes nothing
}

func (c *capConn) Close() error {
	err := c.Conn.Close()
	c.close.Do(func() {
		c.l.mu.Lock()
		c.l.forget(c)
		c.l.mu.Unlock()
	})
	return err
}

// ReadFrom keeps sendfile for media downloads.
func (c *capConn) ReadFrom(r io.Reader) (int64, error) {
	if rf, ok := c.Conn.(io.ReaderFrom); ok {
		return rf.ReadFrom(r)
	}
	return io.Copy(c.Conn, r)
}

// CloseWrite lets net/http close its side of the connection gracefully.
func (c *capConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}
