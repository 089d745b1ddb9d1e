package server

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sparkfamily/spark/engine"
	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/auth"
)

// Service is the subset of *engine.Engine that the HTTP face uses: one method
// per route of the contract. Its errors that a caller should see are
// *api.Error; anything else is answered 500.
type Service interface {
	CreateMoment(ctx context.Context, req api.CreateMomentRequest) (*api.Moment, bool, error)
	Moment(ctx context.Context, id string) (*api.Moment, error)
	// EachMoment and EachOp give a page one item at a time and stop when
	// the callback returns engine.ErrPageFull.
	EachMoment(ctx context.Context, limit int, before string, fn func(*api.Moment) error) (*string, error)
	EditMoment(ctx context.Context, id string, req api.EditMomentRequest) (*api.Moment, bool, error)
	DeleteMoment(ctx context.Context, id string) (bool, error)
	EachDeletedMoment(ctx context.Context, limit int, before string, fn func(*api.Moment) error) (*string, error)
	RestoreMoment(ctx context.Context, id string) (*api.Moment, bool, error)
	PutWords(ctx context.Context, momentID string, w api.Words) (*api.Words, bool, error)
	PutMedia(ctx context.Context, put PutMedia) (*api.Media, bool, error)
	OpenMedia(ctx context.Context, id string) (*api.Media, *os.File, error)
	StartTurn(ctx context.Context, momentID string, req api.StartTurnRequest) (*api.Turn, bool, error)
	Turn(ctx context.Context, id string) (*api.Turn, error)
	StartJob(ctx context.Context, momentID, jobID string) ([]api.Turn, bool, error)
	StartRecall(ctx context.Context, recallID string) (*api.Moment, *api.Turn, bool, error)
	KeepPhrase(ctx context.Context, req api.KeepPhraseRequest) (*api.Phrase, bool, error)
	// PhrasePage and MomentTurns page GET /v1/phrases and
	// GET /v1/moments/{id}/turns [extension].
	PhrasePage(ctx context.Context, after uint64, limit int) ([]api.Phrase, *uint64, error)
	MomentTurns(ctx context.Context, id, after string, limit int) ([]api.Turn, *string, error)
	RemovePhrase(ctx context.Context, id string) (bool, error)
	EachOp(ctx context.Context, after uint64, limit int, fn func(api.Op) error) (*uint64, error)
	Health(ctx context.Context) api.Health
}

// PutMedia is an upload handed to Service.PutMedia: the engine's own type,
// so that *engine.Engine is a Service as it is.
type PutMedia = engine.PutMedia

var _ Service = (*engine.Engine)(nil)

// TokenChecker says whose a bearer token is and what its scope allows
// (*auth.Store is one).
type TokenChecker interface {
	Lookup(token string) (auth.Token, bool)
}

// Options configure New.
type Options struct {
	// Tokens checks bearer tokens. Required: without it every route but
	// health answers 401.
	Tokens TokenChecker
	// LoopbackHostsOnly refuses, with 403 bad_host, any request whose Host
	// header is not 127.0.0.1, localhost or [::1] (any port). The desktop
	// app's embedded engine sets it so that a web page cannot reach the
	// engine through a DNS name rebound to 127.0.0.1.
	LoopbackHostsOnly bool
	// Logger receives the access log and internal errors; nil is slog.Default().
	Logger *slog.Logger
	// Metrics holds the collectors; nil makes a new set on Registry.
	Metrics *Metrics
	// Registry is where a new set of metrics is registered and what
	// GET /metrics serves; nil is a private registry of the server's own.
	Registry *prometheus.Registry
	// Version, when set, is the version GET /v1/health reports.
	Version string
	// Backup, when set, tells how the engine's off-site copy stands:
	// GET /v1/health carries it as its backup extension.
	Backup BackupHealther
}

// BackupHealther tells how an off-site copy stands (engine/backup's
// Keeper).
type BackupHealther interface {
	Health() *api.BackupHealth
}

type server struct {
	svc     Service
	opts    Options
	log     *slog.Logger
	metrics *Metrics
	mux     *http.ServeMux
}

// New returns the handler for the whole v1 contract over svc.
func New(svc Service, opts Options) http.Handler {
	s := &server{svc: svc, opts: opts, log: opts.Logger, metrics: opts.Metrics, mux: http.NewServeMux()}
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.metrics == nil {
		reg := opts.Registry
		if reg == nil {
			reg = prometheus.NewRegistry()
		}
		s.metrics = NewMetrics(reg)
	}
	s.routes()
	return s
}

func (s *server) routes() {
	m := s.mux
	m.HandleFunc("POST /v1/moments", s.createMoment)
	m.HandleFunc("GET /v1/moments", s.listMoments)
	m.HandleFunc("GET /v1/moments/{id}", s.getMoment)
	m.HandleFunc("GET /v1/moments/{id}/turns", s.momentTurns) // [extension]
	m.HandleFunc("PATCH /v1/moments/{id}", s.editMoment)
	m.HandleFunc("DELETE /v1/moments/{id}", s.deleteMoment)
	m.HandleFunc("POST /v1/moments/{id}/restore", s.restoreMoment) // [extension]
	m.HandleFunc("POST /v1/moments/{id}/words", s.putWords)        // [extension]
	m.HandleFunc("PUT /v1/media/{id}", s.putMedia)
	m.HandleFunc("GET /v1/media/{id}", s.getMedia)
	m.HandleFunc("POST /v1/moments/{id}/turns", s.startTurn)
	m.HandleFunc("GET /v1/turns/{id}", s.getTurn)
	m.HandleFunc("POST /v1/moments/{id}/jobs", s.startJob)
	m.HandleFunc("POST /v1/recalls", s.startRecall)
	m.HandleFunc("POST /v1/phrases", s.keepPhrase)
	m.HandleFunc("GET /v1/phrases", s.listPhrases)
	m.HandleFunc("DELETE /v1/phrases/{id}", s.removePhrase)
	m.HandleFunc("GET /v1/ops", s.listOps)
	m.HandleFunc("GET /v1/search", s.search)               // [extension] search.go
	m.HandleFunc("POST "+api.ImportTurnPath, s.importTurn) // [extension] import.go
	m.HandleFunc("GET "+healthPath, s.health)
	m.HandleFunc("GET "+api.MePath, s.me) // [extension] me.go
	m.Handle("GET /metrics", adminOnly(s.metrics.handler(), "the engine's metrics"))
	s.uploadRoutes() // [extension] uploads.go
}

const healthPath = "/v1/health"

// ServeHTTP wraps the mux: access log and metrics, Host guard, auth, and
// contract JSON for the mux's own plain-text 404 and 405 answers.
func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	rw := &statusWriter{ResponseWriter: w}
	h, pattern := s.mux.Handler(r)
	route := pattern
	if route == "" {
		route = "unmatched"
	}
	defer func() {
		d := time.Since(start)
		status := rw.status
		if status == 0 {
			status = http.StatusOK
		}
		s.metrics.observeRequest(route, status, d)
		// Writes and failures are worth a line; successful reads are at
		// Debug, since the app polls health and pages every few seconds and
		// would fill its log with them.
		level := slog.LevelInfo
		if (r.Method == http.MethodGet || r.Method == http.MethodHead) && status < 400 {
			level = slog.LevelDebug
		}
		s.log.LogAttrs(r.Context(), level, "http",
			slog.String("method", r.Method), slog.String("route", route), slog.String("path", r.URL.Path),
			slog.Int("status", status), slog.Duration("duration", d), slog.Int64("bytes", rw.bytes),
			slog.String("client", rw.client))
	}()

	if s.opts.LoopbackHostsOnly && !loopbackHost(r.Host) {
		writeError(rw, api.Errorf(api.CodeBadHost, "this engine only answers requests addressed to 127.0.0.1, localhost or [::1], not %q", r.Host))
		return
	}
	if !(r.Method == http.MethodGet || r.Method == http.MethodHead) || r.URL.Path != healthPath {
		tok, ok := s.authenticate(r)
		if !ok {
			writeError(rw, api.Errorf(api.CodeUnauthorized, "this request needs an Authorization: Bearer <token> header with a valid token; the engine's owner makes one with `spark-engine token add NAME`"))
			return
		}
		rw.client = tok.Name
		// The engine checks what the token's member may do, and writes the
		// token's name and member as the author of every op the request
		// causes.
		a, err := actorOf(r, tok)
		if err != nil {
			writeError(rw, err)
			return
		}
		ctx := context.WithValue(r.Context(), scopeKey{}, tok.Scope)
		r = r.WithContext(engine.WithActor(ctx, a))
	}
	if pattern == "" {
		s.unmatched(rw, r, h)
		return
	}
	s.mux.ServeHTTP(rw, r)
}

// actorOf is who asks r, with token tok: the token's name, member and
// scope. An admin token may write for another member (api.MemberHeader:
// push keeping who added what); a device token only for its own, so its
// header is ignored.
func actorOf(r *http.Request, tok auth.Token) (engine.Actor, *api.Error) {
	a := engine.Actor{Name: tok.Name, Member: tok.Member, Admin: tok.Scope == auth.ScopeAdmin}
	if m := r.Header.Get(api.MemberHeader); m != "" && a.Admin {
		if err := auth.CheckMember(m); err != nil {
			return engine.Actor{}, api.Errorf(api.CodeBadMember, "the %s header is not a family member's name: %v", api.MemberHeader, err)
		}
		a.Member = m
	}
	return a, nil
}

// scopeKey is the context key of the scope of a request's token.
type scopeKey struct{}

// adminOnly serves h to admin tokens only; a device token gets 403
// forbidden, saying that what is its an admin's.
func adminOnly(h http.Handler, what string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if scope, _ := r.Context().Value(scopeKey{}).(auth.Scope); scope != auth.ScopeAdmin {
			writeError(w, api.Errorf(api.CodeForbidden, "%s are for the engine's owner: ask with an admin token (spark-engine token add NAME --scope admin), not a family member's device token", what))
			return
		}
		h.ServeHTTP(w, r)
	})
}

// authenticate checks the bearer token of r.
func (s *server) authenticate(r *http.Request) (auth.Token, bool) {
	if s.opts.Tokens == nil {
		return auth.Token{}, false
	}
	scheme, token, found := strings.Cut(r.Header.Get("Authorization"), " ")
	if !found || !strings.EqualFold(scheme, "Bearer") {
		return auth.Token{}, false
	}
	token = strings.TrimSpace(token)
	if token == "" {
		return auth.Token{}, false
	}
	tok, ok := s.opts.Tokens.Lookup(token)
	if ok {
		authenticated(r.Context()) // its connection is a token holder's (conns.go)
	}
	return tok, ok
}

// unmatched answers a request no route matched, turning the mux's plain-text
// 404 or 405 (with its Allow header) into the contract's JSON.
func (s *server) unmatched(w http.ResponseWriter, r *http.Request, h http.Handler) {
	rec := &headerRecorder{header: http.Header{}}
	h.ServeHTTP(rec, r)
	switch rec.status {
	case http.StatusMethodNotAllowed:
		allow := rec.header.Get("Allow")
		w.Header().Set("Allow", allow)
		writeError(w, api.Errorf(api.CodeMethodNotAllowed, "%s is not allowed on %s; allowed: %s", r.Method, r.URL.Path, allow))
	default:
		writeError(w, api.Errorf(api.CodeNotFound, "there is no route %s %s in the v1 contract; see docs/API.md", r.Method, r.URL.Path))
	}
}

// loopbackHost reports whether a Host header names the loopback interface.
func loopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	} else if strings.HasPrefix(host, "[") && strings.HasSuffix(host, "]") {
		host = host[1 : len(host)-1]
	}
	switch strings.ToLower(host) {
	case "127.0.0.1", "localhost", "::1":
		return true
	}
	return false
}

// statusWriter remembers the status and size of an answer for the access log.
type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
	client string
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 && code >= 200 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}

// Unwrap lets http.ResponseController reach the connection underneath.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// headerRecorder captures what the mux's fallback handlers write, which is
// only a status, headers and a line of text to drop.
type headerRecorder struct {
	header http.Header
	status int
}

func (h *headerRecorder) Header() http.Header { return h.header }
func (h *headerRecorder) WriteHeader(code int) {
	if h.status == 0 {
		h.status = code
	}
}
func (h *headerRecorder) Write(b []byte) (int, error) {
	if h.status == 0 {
		h.status = http.StatusOK
	}
	return len(b), nil
}

// ReadFrom keeps the connection's sendfile path for media downloads.
func (w *statusWriter) ReadFrom(r io.Reader) (int64, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	var n int64
	var err error
	if rf, ok := w.ResponseWriter.(io.ReaderFrom); ok {
		n, err = rf.ReadFrom(r)
	} else {
		n, err = io.Copy(w.ResponseWriter, r)
	}
	w.bytes += n
	return n, err
}
