package server

import (
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
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
	// DefaultMaxConnsPerClient caps the connections one client address
	// holds at once. A family's devices need a few each; behind a reverse
	// proxy every connection comes from the proxy's address, so the cap is
	// generous.
	DefaultMaxConnsPerClient = 64
)

// HTTPOptions configure NewHTTPServer. Zero values are the defaults above;
// tests shorten the timeouts.
type HTTPOptions struct {
	// MaxConnsPerClient caps the connections open at once from one client
	// IP address; further ones are closed as soon as they are accepted.
	// 0 is DefaultMaxConnsPerClient; a negative value sets no cap (the
	// app's own loopback engine has one client).
	MaxConnsPerClient int
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
//     body nobody will read;
//   - an answer must be written within AnswerTimeout (longer for media).
func NewHTTPServer(ln net.Listener, h http.Handler, opts HTTPOptions) (*http.Server, net.Listener) {
	o := opts.withDefaults()
	srv := &http.Server{
		Handler:           &guard{h: h, o: o},
		ReadHeaderTimeout: o.ReadHeaderTimeout,
		IdleTimeout:       o.IdleTimeout,
		ErrorLog:          slog.NewLogLogger(o.Logger.Handler(), slog.LevelWarn),
	}
	if o.MaxConnsPerClient > 0 {
		ln = &capListener{Listener: ln, max: o.MaxConnsPerClient, open: map[string]int{}, log: o.Logger}
	}
	return srv, ln
}

func (o HTTPOptions) withDefaults() HTTPOptions {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&o.ReadHeaderTimeout, DefaultReadHeaderTimeout)
	def(&o.IdleTimeout, DefaultIdleTimeout)
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

// guard sets each request's deadlines and closes the connection of an
// answer sent before the body was read.
type guard struct {
	h http.Handler
	o HTTPOptions
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

// capListener closes, as soon as it is accepted, a connection from a client
// address that already holds max open connections.
type capListener struct {
	net.Listener
	max int
	log *slog.Logger

	mu       sync.Mutex
	open     map[string]int
	refused  int       // connections closed since the last warning
	lastWarn time.Time // when the last warning was logged
}

// capWarnEvery bounds how often the cap is logged.
const capWarnEvery = 10 * time.Second

func (l *capListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		host := clientHost(c.RemoteAddr())
		l.mu.Lock()
		if l.open[host] >= l.max {
			l.refused++
			warn := time.Since(l.lastWarn) >= capWarnEvery
			refused := l.refused
			if warn {
				l.lastWarn, l.refused = time.Now(), 0
			}
			l.mu.Unlock()
			c.Close()
			if warn {
				l.log.Warn("closed connections from a client that already holds the most the engine allows at once",
					"client", host, "max", l.max, "closed", refused)
			}
			continue
		}
		l.open[host]++
		l.mu.Unlock()
		return &capConn{Conn: c, l: l, host: host}, nil
	}
}

func (l *capListener) release(host string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open[host]--; l.open[host] <= 0 {
		delete(l.open, host)
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

// capConn gives its place back to the listener when closed.
type capConn struct {
	net.Conn
	l     *capListener
	host  string
	close sync.Once
}

func (c *capConn) Close() error {
	err := c.Conn.Close()
	c.close.Do(func() { c.l.release(c.host) })
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
