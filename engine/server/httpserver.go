package server

import (
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"time"

	"github.com/sparkfamily/spark/engine"
)

// Limits of the engine's HTTP server (NewHTTPServer). A client that cannot
// keep to them is answered and its connection closed, so that slow or
// hostile clients cannot hold the engine's goroutines and file
// descriptors.
const (
	// DefaultReadHeaderTimeout bounds the time to send a request's headers.
	DefaultReadHeaderTimeout = 10 * time.Second
	// DefaultIdleTimeout closes a kept-alive connection left idle this long.
	DefaultIdleTimeout = 2 * time.Minute
	// DefaultUnauthenticatedIdleTimeout closes sooner a connection on which
	// no request showed a valid token (conns.go): a token holder's next
	// request comes on it within seconds, or on a new connection.
	DefaultUnauthenticatedIdleTimeout = 5 * time.Second
	// DefaultJSONBodyTimeout bounds the time to send a JSON body (at most
	// api.MaxJSONBody bytes), counted from the end of the headers.
	DefaultJSONBodyTimeout = 15 * time.Second
	// DefaultMediaBodyTimeout is the base time to send a media upload; a
	// second per MinTransferRate bytes of its Content-Length is added.
	DefaultMediaBodyTimeout = 2 * time.Minute
	// DefaultAnswerTimeout bounds the time to send an answer; a media
	// download gets a second more per MinTransferRate bytes.
	DefaultAnswerTimeout = 2 * time.Minute
	// MinTransferRate (bytes per second) is the slowest average rate at
	// which a media upload or download is sure to finish: 32 KiB/s, a
	// poor mobile link.
	MinTransferRate = 32 << 10
	// DefaultMaxConnsPerClient caps the connections of token holders one
	// client address holds at once (and the requests at work of each client
	// behind a trusted proxy). A family's devices need a few each; behind a
	// reverse proxy that is not trusted, every connection comes from the
	// proxy's address, so the cap is generous.
	DefaultMaxConnsPerClient = 64
)

// HTTPOptions configure NewHTTPServer. Zero values are the defaults above;
// tests shorten the timeouts.
type HTTPOptions struct {
	// MaxConnsPerClient caps the connections open at once from one client
	// IP address: a further one takes the place of the one that has waited
	// the longest without showing a valid token, or, when every one is a
	// token holder's, is closed as soon as it is accepted (conns.go). 0 is
	// DefaultMaxConnsPerClient; a negative value sets no cap (the app's own
	// loopback engine has one client).
	MaxConnsPerClient int
	// TrustedProxies are the reverse proxies whose X-Forwarded-For the
	// engine believes: a request over a connection from one of them is
	// counted as the client's the proxy forwards, which may have
	// MaxConnsPerClient requests at work at once (proxy.go). Empty: the
	// header is never read.
	TrustedProxies []netip.Prefix
	// UnauthenticatedIdleTimeout closes a connection on which no request
	// showed a valid token once it has been idle this long; 0 is
	// DefaultUnauthenticatedIdleTimeout.
	UnauthenticatedIdleTimeout time.Duration
	// Logger receives the server's own errors and the cap's warnings; nil
	// is slog.Default().
	Logger *slog.Logger
	// MaxMediaSize is the engine's media limit (engine.Config.MaxMediaSize;
	// 0 is engine.DefaultMaxMediaSize): an upload's deadline counts its
	// Content-Length up to it, never more.
	MaxMediaSize int64

	ReadHeaderTimeout time.Duration
	IdleTimeout       time.Duration
	JSONBodyTimeout   time.Duration
	MediaBodyTimeout  time.Duration
	AnswerTimeout     time.Duration
}

// NewHTTPServer builds the *http.Server that serves an engine's handler h
// (from New), and wraps ln with the cap on connections per client; serve
// with srv.Serve(wrapped). The family engine (spark-engine serve) and the
// app's own engine both use it:
//
//   - headers must arrive within ReadHeaderTimeout, and an idle kept-alive
//     connection is closed after IdleTimeout;
//   - a request body must arrive within its deadline: JSONBodyTimeout for
//     JSON, generous for a media upload (MediaBodyTimeout plus its size at
//     MinTransferRate); past it the request is answered 408
//     request_timeout;
//   - an answer sent before the request's body was read (an error such as
//     401 or 503) closes the connection at once, instead of waiting for a
//     body nobody will read, and so does every 401;
//   - an answer must be written within AnswerTimeout (longer for media);
//   - a connection on which no request showed a valid token is closed
//     after UnauthenticatedIdleTimeout idle, and never holds a token
//     holder's place (conns.go);
//   - behind a trusted proxy, each client is counted by the address the
//     proxy forwards (proxy.go).
func NewHTTPServer(ln net.Listener, h http.Handler, opts HTTPOptions) (*http.Server, net.Listener) {
	o := opts.withDefaults()
	cl := &capListener{Listener: ln, max: max(o.MaxConnsPerClient, 0), unauthIdle: o.UnauthenticatedIdleTimeout,
		trusted: o.TrustedProxies, open: map[string][]*capConn{}, log: o.Logger}
	g := &guard{h: h, o: o}
	if len(o.TrustedProxies) > 0 && o.MaxConnsPerClient > 0 {
		g.fwd = &forwarded{trusted: o.TrustedProxies, max: o.MaxConnsPerClient, log: o.Logger, busy: map[netip.Addr]int{}}
	}
	srv := &http.Server{
		Handler:           g,
		ReadHeaderTimeout: o.ReadHeaderTimeout,
		IdleTimeout:       o.IdleTimeout,
		ConnState:         cl.connState,
		ConnContext:       cl.connContext,
		ErrorLog:          slog.NewLogLogger(o.Logger.Handler(), slog.LevelWarn),
	}
	return srv, cl
}

func (o HTTPOptions) withDefaults() HTTPOptions {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&o.ReadHeaderTimeout, DefaultReadHeaderTimeout)
	def(&o.IdleTimeout, DefaultIdleTimeout)
	def(&o.UnauthenticatedIdleTimeout, DefaultUnauthenticatedIdleTimeout)
	def(&o.JSONBodyTimeout, DefaultJSONBodyTimeout)
	def(&o.MediaBodyTimeout, DefaultMediaBodyTimeout)
	def(&o.AnswerTimeout, DefaultAnswerTimeout)
	if o.MaxConnsPerClient == 0 {
		o.MaxConnsPerClient = DefaultMaxConnsPerClient
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.MaxMediaSize <= 0 {
		o.MaxMediaSize = engine.DefaultMaxMediaSize
	}
	return o
}

// atRate is the time to move n bytes at MinTransferRate.
func atRate(n int64) time.Duration {
	const most = 1 << 40 // no overflow whatever a client declares
	return time.Duration(min(n, most)/MinTransferRate) * time.Second
}

// guard sets each request's deadlines, closes the connection of an
// answer sent before the body was read, and counts the requests of each
// client behind a trusted proxy.
type guard struct {
	h   http.Handler
	o   HTTPOptions
	fwd *forwarded // nil: no trusted proxy
}

func (g *guard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	now := time.Now()
	rc := http.NewResponseController(w)
	gw := &guardWriter{ResponseWriter: w, rc: rc}
	// Errors setting deadlines are ignored: only a connection that does not
	// support them (none that net/http serves over TCP) returns one.
	rc.SetWriteDeadline(now.Add(g.o.AnswerTimeout))
	if r.ContentLength != 0 { // a declared length, or -1: chunked
		gw.body = &guardBody{ReadCloser: r.Body}
		if isMediaBody(r) {
			// The deadline counts the declared length up to the media
			// limit only (a longer upload is refused with 413 anyway), and
			// the body must keep coming: past the first MediaBodyTimeout,
			// at MinTransferRate on average (guardBody.Read).
			n := r.ContentLength
			if n < 0 || n > g.o.MaxMediaSize {
				n = g.o.MaxMediaSize
			}
			gw.body.pace = &pace{rc: rc, start: now, grace: g.o.MediaBodyTimeout, end: now.Add(g.o.MediaBodyTimeout + atRate(n)), answer: g.o.AnswerTimeout}
			rc.SetReadDeadline(gw.body.pace.deadline())
		} else {
			rc.SetReadDeadline(now.Add(g.o.JSONBodyTimeout))
		}
		r = r.WithContext(r.Context())
		r.Body = gw.body
	}
	if g.fwd != nil {
		if client, ok := g.fwd.client(r); ok {
			if !g.fwd.enter(client) {
				writeError(gw, g.fwd.tooManyRequests(client))
				return
			}
			defer g.fwd.leave(client)
		}
	}
	g.h.ServeHTTP(gw, r)
}

// extendAnswer gives a long answer (a media download of size bytes) more
// time than DefaultAnswerTimeout.
func extendAnswer(w http.ResponseWriter, size int64) {
	http.NewResponseController(w).SetWriteDeadline(time.Now().Add(DefaultAnswerTimeout + atRate(size)))
}

// guardBody tracks whether the body was read to its end. (Once it was,
// net/http lifts the read deadline itself, before it watches the
// connection for the client going away.)
type guardBody struct {
	io.ReadCloser
	eof bool
	// pace, for a media upload, moves the read deadline as bytes come.
	pace *pace
}

func (b *guardBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF {
		b.eof = true
	}
	if b.pace != nil {
		switch {
		case err != nil:
			// The body is over (whole, cut off or failed): the answer gets
			// its own time from now, however long the body took.
			b.pace.rc.SetWriteDeadline(time.Now().Add(b.pace.answer))
		case n > 0:
			b.pace.got += int64(n)
			b.pace.rc.SetReadDeadline(b.pace.deadline())
		}
	}
	return n, err
}

// pace is the read deadline of a media upload: the body must have come
// whole by end (its declared length, capped at the media limit, at
// MinTransferRate, after grace), and at any time t it must have come at
// MinTransferRate since start+grace, with paceSlack to spare. An upload
// trickling a byte every few seconds is thus cut off (408) soon after
// grace, rather than holding a temp file and a connection until end.
type pace struct {
	rc         *http.ResponseController
	start, end time.Time
	grace      time.Duration
	got        int64
	// answer is the time the answer gets once the body is over.
	answer time.Duration
}

// paceSlack is how far ahead of the pace the body may fall behind: a
// second and more of a slow link's bytes in flight.
const paceSlack = 64 << 10

func (p *pace) deadline() time.Time {
	d := p.start.Add(p.grace + time.Duration(float64(p.got+paceSlack)/MinTransferRate*float64(time.Second)))
	if d.After(p.end) {
		return p.end
	}
	return d
}

// guardWriter closes the connection of an answer sent before the request's
// body was read to its end: the client may never send the rest, and
// net/http would otherwise read it (to reuse the connection) before and
// after answering.
type guardWriter struct {
	http.ResponseWriter
	rc    *http.ResponseController
	body  *guardBody
	wrote bool
}

func (w *guardWriter) WriteHeader(code int) {
	if code >= 100 && code < 200 {
		// An interim answer (104 of a resumable upload): the body is
		// still to be read.
		w.ResponseWriter.WriteHeader(code)
		return
	}
	if !w.wrote {
		w.wrote = true
		if code == http.StatusUnauthorized {
			// A connection with no valid token is held no longer than its
			// answer (conns.go).
			w.Header().Set("Connection", "close")
		}
		if w.body != nil && !w.body.eof {
			w.Header().Set("Connection", "close")
			// An expired deadline makes net/http's drain of the unread body
			// return at once, after the answer is flushed.
			w.rc.SetReadDeadline(time.Now())
		}
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *guardWriter) Write(b []byte) (int, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

// ReadFrom keeps the connection's sendfile path for media downloads.
func (w *guardWriter) ReadFrom(r io.Reader) (int64, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	if rf, ok := w.ResponseWriter.(io.ReaderFrom); ok {
		return rf.ReadFrom(r)
	}
	return io.Copy(w.ResponseWriter, r)
}

// Unwrap lets http.ResponseController reach the connection underneath.
func (w *guardWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
