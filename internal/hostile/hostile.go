// Package hostile is, for tests, a fake engine on 127.0.0.1 that answers
// the contract's calls as a broken or malicious engine might: absurd
// sequence numbers, endless or oversized pages, ops no engine writes,
// redirects elsewhere, bodies that drip or stall, a health that names
// another engine. The client, the replica, push and spark must each end
// such a call with a clear error within their bounds of time and memory.
//
// Where faultproxy (beside it) troubles the link to a real engine, hostile
// is the engine itself: nothing it answers comes from a real one, except
// through Renamed, which fronts a real engine and changes only its name.
package hostile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sparkfamily/spark/engine/api"
)

// EngineID is the engine_id a hostile Engine's health gives.
const EngineID = "01JD00000000000000000HOST1"

// Serve serves h on 127.0.0.1 (never another interface), closed at the
// end of the test.
func Serve(tb testing.TB, h http.HandlerFunc) *httptest.Server {
	tb.Helper()
	srv := httptest.NewUnstartedServer(h)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	srv.Listener.Close()
	srv.Listener = l
	srv.Start()
	tb.Cleanup(srv.Close)
	return srv
}

// Engine is a fake engine that answers GET /v1/health with Seq and every
// page of GET /v1/ops with Page(w, after, limit), written as it is; any
// other path is not_found. Pages counts the pages asked for.
type Engine struct {
	Seq   uint64
	Page  func(w io.Writer, after uint64, limit int)
	Pages atomic.Int64
}

// ServeHTTP answers one request as the Engine.
func (e *Engine) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	switch r.URL.Path {
	case "/v1/health":
		fmt.Fprintf(w, `{"ok":true,"version":"0.0.0","seq":%d,"engine_id":%q}`, e.Seq, EngineID)
	case "/v1/ops":
		e.Pages.Add(1)
		after, _ := strconv.ParseUint(r.URL.Query().Get("after"), 10, 64)
		limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
		e.Page(w, after, limit)
	default:
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"error":{"code":"not_found","message":"no"}}`)
	}
}

// Start serves the Engine on 127.0.0.1 for the test.
func (e *Engine) Start(tb testing.TB) *httptest.Server {
	tb.Helper()
	return Serve(tb, e.ServeHTTP)
}

// Log is a Page that holds op(s) for every seq s after the page's after
// and up to last, at most limit of them (at least one), with next set
// while the log goes on: with a last of 2^31, a log without end.
func Log(last uint64, op func(seq uint64) api.Op) func(w io.Writer, after uint64, limit int) {
	return func(w io.Writer, after uint64, limit int) {
		page := api.OpsPage{}
		for s := after + 1; s <= last && len(page.Ops) < max(limit, 1); s++ {
			page.Ops = append(page.Ops, op(s))
		}
		if n := len(page.Ops); n > 0 && page.Ops[n-1].Seq < last {
			next := page.Ops[n-1].Seq
			page.Next = &next
		}
		json.NewEncoder(w).Encode(page)
	}
}

// OpsJSON is a page holding ops, with next.
func OpsJSON(ops []api.Op, next *uint64) []byte {
	b, err := json.Marshal(api.OpsPage{Ops: ops, Next: next})
	if err != nil {
		panic(err)
	}
	return b
}

// Op is an op of the given name at seq, its data data as JSON.
func Op(seq uint64, name string, data any) api.Op {
	b, _ := json.Marshal(data)
	return api.Op{Seq: seq, At: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), Op: name, Data: b}
}

// WriteCounting writes b and counts what got written.
func WriteCounting(w io.Writer, n *atomic.Int64, b []byte) error {
	k, err := w.Write(b)
	n.Add(int64(k))
	return err
}

// Witness is a server on 127.0.0.1 where a redirect must not lead: it
// keeps the Authorization of every request it gets, and answers an empty
// page of ops.
type Witness struct {
	URL  string
	mu   sync.Mutex
	auth []string
}

// NewWitness starts a Witness for the test.
func NewWitness(tb testing.TB) *Witness {
	tb.Helper()
	wi := &Witness{}
	wi.URL = Serve(tb, func(w http.ResponseWriter, r *http.Request) {
		wi.mu.Lock()
		wi.auth = append(wi.auth, r.Header.Get("Authorization"))
		wi.mu.Unlock()
		io.WriteString(w, `{"ops":[],"next":null}`)
	}).URL
	return wi
}

// Hits is how many requests reached the Witness.
func (wi *Witness) Hits() int {
	wi.mu.Lock()
	defer wi.mu.Unlock()
	return len(wi.auth)
}

// Tokens is the Authorization of each request that reached the Witness,
// "" for one that came without.
func (wi *Witness) Tokens() []string {
	wi.mu.Lock()
	defer wi.mu.Unlock()
	return append([]string(nil), wi.auth...)
}

// Redirecting is an engine on 127.0.0.1 whose health gives seq and which
// answers every other call with a redirect (307) to the same path at to.
func Redirecting(tb testing.TB, seq uint64, to string) *httptest.Server {
	tb.Helper()
	return Serve(tb, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/health" {
			fmt.Fprintf(w, `{"ok":true,"version":"0.0.0","seq":%d}`, seq)
			return
		}
		http.Redirect(w, r, to+r.URL.RequestURI(), http.StatusTemporaryRedirect)
	})
}

// Renamed fronts the real engine at target and answers its GET
// /v1/health with engine_id replaced by id: an engine that names itself
// as it likes. It returns the address to call.
func Renamed(tb testing.TB, target, id string) string {
	tb.Helper()
	u, err := url.Parse(target)
	if err != nil {
		tb.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.ModifyResponse = func(res *http.Response) error {
		if res.Request.URL.Path != "/v1/health" || res.StatusCode != http.StatusOK {
			return nil
		}
		b, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil {
			return err
		}
		var h map[string]any
		if err := json.Unmarshal(b, &h); err != nil {
			return err
		}
		h["engine_id"] = id
		if b, err = json.Marshal(h); err != nil {
			return err
		}
		res.Body = io.NopCloser(bytes.NewReader(b))
		res.ContentLength = int64(len(b))
		res.Header.Set("Content-Length", strconv.Itoa(len(b)))
		return nil
	}
	return Serve(tb, rp.ServeHTTP).URL
}
