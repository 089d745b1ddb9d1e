package client

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"sync"
	"time"
)

// HTTPOptions tune NewHTTPClient. A zero field takes its default.
type HTTPOptions struct {
	// DialTimeout bounds connecting and the TLS handshake: 15 s.
	DialTimeout time.Duration
	// HeaderTimeout bounds the wait for an answer's headers once the
	// request is sent: 2 minutes.
	HeaderTimeout time.Duration
	// IdleConnsPerHost is how many connections to the engine are kept
	// open between requests: net/http's default, 2.
	IdleConnsPerHost int
	// WriteBufferSize and ReadBufferSize are the connection buffers:
	// net/http's default, 4 KB.
	WriteBufferSize, ReadBufferSize int

	// BodyIdle fails a body, sent or received, that moves no byte for
	// this long: 60 s.
	BodyIdle time.Duration
	// BodyGrace and BodyMinRate bound a body's whole time by its size:
	// once BodyGrace (30 s) has passed since a body began, it must have
	// moved at least BodyMinRate (16 KiB) bytes a second since then, or
	// it fails. A 20 MB original on a 1 Mbit/s link (3 minutes) passes; a
	// body sent a byte every few seconds fails 30 s after it began.
	BodyGrace   time.Duration
	BodyMinRate int64
}

// Defaults of HTTPOptions.
const (
	DefaultDialTimeout   = 15 * time.Second
	DefaultHeaderTimeout = 2 * time.Minute
	DefaultBodyIdle      = 60 * time.Second
	DefaultBodyGrace     = 30 * time.Second
	DefaultBodyMinRate   = 16 << 10
)

// ErrSlowBody matches (errors.Is) the error of a body that stalled or came
// slower than HTTPOptions allow. It is a time-out (os.ErrDeadlineExceeded),
// so retry.Network counts it as passing trouble.
var ErrSlowBody = fmt.Errorf("client: the engine's connection is too slow or stalled (%w)", os.ErrDeadlineExceeded)

// ErrRedirect matches (errors.Is) the error of an engine that redirected
// to another address (scheme, host or port): Spark follows none there.
var ErrRedirect = errors.New("client: the engine redirected to another address, which Spark does not follow")

// maxRedirects bounds the redirects followed within the engine's own
// address.
const maxRedirects = 5

// NewHTTPClient is the one HTTP client for talking to an engine, for New.
// It trusts the engine with nothing it could use to hold or harm the
// computer:
//
//   - connecting is bounded by DialTimeout and the wait for an answer's
//     headers by HeaderTimeout;
//   - every body, the request's as it is sent and the answer's as it is
//     read, fails when it stalls for BodyIdle or comes slower than
//     BodyMinRate after BodyGrace, so its time is bounded by its size: an
//     original may take minutes on a slow link, a drip of bytes fails;
//   - a redirect to another scheme, host or port is refused (ErrRedirect),
//     and no redirect carries the Authorization header.
//
// Together these bound a call's whole time: connecting, sending its body,
// waiting for headers, reading its answer, each by its own rule. The size
// of each answer is bounded where it is decoded (Client).
func NewHTTPClient(o HTTPOptions) *http.Client {
	dial := cmp.Or(o.DialTimeout, DefaultDialTimeout)
	tr := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: dial, KeepAlive: 30 * time.Second}).DialContext,
		TLSHandshakeTimeout:   dial,
		ResponseHeaderTimeout: cmp.Or(o.HeaderTimeout, DefaultHeaderTimeout),
		IdleConnTimeout:       90 * time.Second,
		MaxIdleConnsPerHost:   o.IdleConnsPerHost,
		WriteBufferSize:       o.WriteBufferSize,
		ReadBufferSize:        o.ReadBufferSize,
		ForceAttemptHTTP2:     true,
	}
	g := &guard{
		next:  tr,
		idle:  cmp.Or(o.BodyIdle, DefaultBodyIdle),
		grace: cmp.Or(o.BodyGrace, DefaultBodyGrace),
		rate:  cmp.Or(o.BodyMinRate, DefaultBodyMinRate),
	}
	return &http.Client{Transport: g, CheckRedirect: checkRedirect}
}

// defaultHTTPClient is New's client when given none.
var defaultHTTPClient = sync.OnceValue(func() *http.Client { return NewHTTPClient(HTTPOptions{}) })

// checkRedirect follows a redirect only within the first request's scheme,
// host and port, and never with the Authorization header.
func checkRedirect(req *http.Request, via []*http.Request) error {
	first := via[0].URL
	if !sameOrigin(first, req.URL) {
		return fmt.Errorf("%w: %s answered with a redirect to %s", ErrRedirect, origin(first), origin(req.URL))
	}
	if len(via) >= maxRedirects {
		return fmt.Errorf("client: the engine redirected %d times; stopped", len(via))
	}
	req.Header.Del("Authorization")
	return nil
}

func sameOrigin(a, b *url.URL) bool {
	return a.Scheme == b.Scheme && a.Hostname() == b.Hostname() && port(a) == port(b)
}

func port(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if u.Scheme == "https" {
		return "443"
	}
	return "80"
}

func origin(u *url.URL) string { return u.Scheme + "://" + u.Host }

// progressKey is the context key of WithProgress's function.
type progressKey struct{}

// WithProgress returns ctx carrying fn, which NewHTTPClient's client calls
// (from its own goroutines) whenever a request made with that context
// moves bytes: some of its body sent, its answer's headers come, some of
// the answer's body read. A caller that must tell a stalled engine from a
// slow one over many calls (push) counts these; a call's own bounds are
// HTTPOptions'.
func WithProgress(ctx context.Context, fn func()) context.Context {
	return context.WithValue(ctx, progressKey{}, fn)
}

// guard is the transport that bounds bodies by progress (see
// NewHTTPClient).
type guard struct {
	next  http.RoundTripper
	idle  time.Duration
	grace time.Duration
	rate  int64
}

func (g *guard) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithCancelCause(req.Context())
	w := &watch{g: g, cancel: cancel, stop: make(chan struct{})}
	w.progress, _ = req.Context().Value(progressKey{}).(func())
	out := req.WithContext(ctx)
	if req.Body != nil && req.Body != http.NoBody {
		out.Body = &sendBody{rc: req.Body, w: w}
		if req.GetBody != nil {
			out.GetBody = func() (io.ReadCloser, error) {
				b, err := req.GetBody()
				if err != nil {
					return nil, err
				}
				return &sendBody{rc: b, w: w}, nil
			}
		}
	}
	go w.run()
	resp, err := g.next.RoundTrip(out)
	if err != nil {
		w.end()
		if cause := context.Cause(ctx); errors.Is(cause, ErrSlowBody) {
			err = cause
		}
		return nil, err
	}
	w.begin(phaseReceive)
	w.told()
	resp.Body = &recvBody{rc: resp.Body, w: w, ctx: ctx}
	return resp, nil
}

const (
	phaseNone = iota
	phaseSend
	phaseReceive
)

// watch fails (cancels) one exchange whose body, sent or received, stalls
// or comes too slowly.
type watch struct {
	g        *guard
	cancel   context.CancelCauseFunc
	progress func() // WithProgress's, or nil

	mu    sync.Mutex
	phase int
	began time.Time // when the phase began
	last  time.Time // the phase's last progress
	n     int64     // bytes moved in the phase

	once sync.Once
	stop chan struct{}
}

// begin starts a phase.
func (w *watch) begin(phase int) {
	now := time.Now()
	w.mu.Lock()
	w.phase, w.began, w.last, w.n = phase, now, now, 0
	w.mu.Unlock()
}

// moved notes n bytes moved in phase, starting it when it is not the
// current one.
func (w *watch) moved(phase int, n int) {
	now := time.Now()
	w.mu.Lock()
	if w.phase != phase {
		w.phase, w.began, w.n = phase, now, 0
	}
	w.n += int64(n)
	if n > 0 {
		w.last = now
	}
	w.mu.Unlock()
	if n > 0 {
		w.told()
	}
}

// told tells WithProgress's function, if any, that bytes moved.
func (w *watch) told() {
	if w.progress != nil {
		w.progress()
	}
}

// rest ends the current phase (a request body sent: the header wait is
// the transport's).
func (w *watch) rest() {
	w.mu.Lock()
	w.phase = phaseNone
	w.mu.Unlock()
}

// end stops watching and lets go of the exchange's context.
func (w *watch) end() {
	w.once.Do(func() {
		close(w.stop)
		w.cancel(nil)
	})
}

// tick is how often the watch looks: a fraction of the shortest bound.
func (w *watch) tick() time.Duration {
	return min(max(min(w.g.idle, w.g.grace)/8, 10*time.Millisecond), time.Second)
}

func (w *watch) run() {
	t := time.NewTicker(w.tick())
	defer t.Stop()
	for {
		select {
		case <-w.stop:
			return
		case now := <-t.C:
			if err := w.check(now); err != nil {
				w.cancel(err)
				return
			}
		}
	}
}

// check returns the error of a phase that broke a bound at now.
func (w *watch) check(now time.Time) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.phase == phaseNone {
		return nil
	}
	what := "sending to"
	if w.phase == phaseReceive {
		what = "reading from"
	}
	if d := now.Sub(w.last); d > w.g.idle {
		return fmt.Errorf("%w: %s the engine, no byte moved for %s", ErrSlowBody, what, d.Round(time.Second))
	}
	elapsed := now.Sub(w.began)
	if elapsed > w.g.grace {
		want := int64((elapsed - w.g.grace).Seconds() * float64(w.g.rate))
		if w.n < want {
			return fmt.Errorf("%w: %s the engine, %d bytes moved in %s, below %d bytes a second", ErrSlowBody, what, w.n, elapsed.Round(time.Second), w.g.rate)
		}
	}
	return nil
}

// sendBody is a request body under watch.
type sendBody struct {
	rc io.ReadCloser
	w  *watch
}

func (b *sendBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	b.w.moved(phaseSend, n)
	if err != nil {
		b.w.rest()
	}
	return n, err
}

func (b *sendBody) Close() error { return b.rc.Close() }

// recvBody is an answer's body under watch; closing it ends the watch.
type recvBody struct {
	rc  io.ReadCloser
	w   *watch
	ctx context.Context
}

func (b *recvBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	b.w.moved(phaseReceive, n)
	if errors.Is(err, io.EOF) {
		b.w.rest()
	} else if err != nil {
		if cause := context.Cause(b.ctx); errors.Is(cause, ErrSlowBody) {
			err = cause
		}
	}
	return n, err
}

func (b *recvBody) Close() error {
	err := b.rc.Close()
	b.w.end()
	return err
}
