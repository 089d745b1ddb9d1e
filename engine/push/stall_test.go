package push_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sparkfamily/spark/engine/client"
	"github.com/sparkfamily/spark/engine/enginetest"
	"github.com/sparkfamily/spark/engine/push"
	"github.com/sparkfamily/spark/internal/hostile"
	"github.com/sparkfamily/spark/internal/retry"
)

// trouble is what a troubledEngine does with a request it picks.
type trouble int32

const (
	fine    trouble = iota
	silent          // takes the request and never answers a byte
	midBody         // answers the headers and half the body, then nothing
	busy            // answers 503, for ever
)

// troubledEngine fronts a real engine on 127.0.0.1 and, once in trouble,
// makes every request pick chooses (past the first skip of them) meet
// it: a peer that stalls or fails for ever, as issue 32's item 8 measured.
type troubledEngine struct {
	URL     string
	engine  *url.URL
	token   string
	pick    func(*http.Request) bool
	mode    atomic.Int32
	skip    atomic.Int64
	met     atomic.Int64 // requests that met the trouble
	release chan struct{}
}

func newTroubledEngine(t *testing.T, e *enginetest.Engine, pick func(*http.Request) bool) *troubledEngine {
	u, err := url.Parse(e.URL)
	if err != nil {
		t.Fatal(err)
	}
	te := &troubledEngine{engine: u, token: e.Token, pick: pick, release: make(chan struct{})}
	rp := httputil.NewSingleHostReverseProxy(u)
	te.URL = hostile.Serve(t, func(w http.ResponseWriter, r *http.Request) {
		if trouble(te.mode.Load()) == fine || !te.pick(r) || te.skip.Add(-1) >= 0 {
			rp.ServeHTTP(w, r)
			return
		}
		te.met.Add(1)
		switch trouble(te.mode.Load()) {
		case silent:
			te.hold(r)
		case busy:
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusServiceUnavailable)
			io.WriteString(w, `{"error":{"code":"unavailable","message":"the engine is busy"}}`)
		case midBody:
			te.halfAnswer(t, w, r)
		}
	}).URL
	// Before the server closes (cleanups run last first), let go of the
	// requests held.
	t.Cleanup(func() { close(te.release) })
	return te
}

// set puts the engine in trouble m for the picked requests after skip.
func (te *troubledEngine) set(m trouble, skip int64) {
	te.skip.Store(skip)
	te.mode.Store(int32(m))
}

func (te *troubledEngine) hold(r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-te.release:
	}
}

// halfAnswer sends the real engine's headers and the first half of its
// body, then holds the request.
func (te *troubledEngine) halfAnswer(t *testing.T, w http.ResponseWriter, r *http.Request) {
	req, _ := http.NewRequestWithContext(r.Context(), r.Method, te.engine.String()+r.URL.RequestURI(), nil)
	req.Header = r.Header.Clone()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Error(err)
		return
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(resp.StatusCode)
	w.Write(body[:len(body)/2])
	w.(http.Flusher).Flush()
	te.hold(r)
}

// Issue 32, item 8: a push whose source or target moves no byte for
// StallAfter, or answers only trouble for GiveUpAfter, ends with an error
// that names the engine and says what to do, well within its bounds
// (before: each stalled read was cut at 31 s and asked 8 times, and 503s
// were asked again for ever); it keeps its checkpoint, and a second run
// with the engine well again goes on from there and finishes.
func TestPush_EndsOnTroubledPeer(t *testing.T) {
	const (
		// Well above what a healthy engine takes to answer on a loaded
		// machine under the race detector, so only the trouble stalls.
		stallAfter  = 3 * time.Second
		giveUpAfter = 3 * time.Second
		// within is how soon the push must end: its bound, with room
		// for a loaded machine, far below the minutes it took before.
		within = 30 * time.Second
	)
	media := func(r *http.Request) bool { return strings.HasPrefix(r.URL.Path, "/v1/media/") }
	writes := func(r *http.Request) bool { return r.Method != http.MethodGet }
	for _, tc := range []struct {
		name     string
		source   bool // the troubled engine is the source (else the target)
		trouble  trouble
		pick     func(*http.Request) bool
		skip     int64
		want     error
		words    string
		endsFrom time.Duration // the push cannot end sooner
	}{
		{"target takes uploads and never answers", false, silent, media, 6, push.ErrStalled,
			"the engine the moments go to (%s) moved no byte for 3s", stallAfter},
		{"target answers 503 for ever", false, busy, writes, 20, push.ErrGaveUp,
			"the engine the moments go to (%s) answered only with trouble for 3s", giveUpAfter},
		{"source stalls in the middle of a file", true, midBody, media, 4, push.ErrStalled,
			"the engine the moments come from (%s) moved no byte for 3s", stallAfter},
		{"source takes a page of its log and never answers", true, silent,
			// The first GET /v1/ops checks the token; the second is the
			// first page.
			func(r *http.Request) bool { return r.URL.Path == "/v1/ops" }, 1, push.ErrStalled,
			"the engine the moments come from (%s) moved no byte for 3s", stallAfter},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := enginetest.Start(t)
			fillSource(t, src, 12)
			dst := enginetest.Start(t)
			troubled := dst
			if tc.source {
				troubled = src
			}
			te := newTroubledEngine(t, troubled, tc.pick)
			fast := retry.Backoff{Base: time.Millisecond, Cap: 50 * time.Millisecond}
			opts := push.Options{StateDir: t.TempDir(), Logger: quiet(), CheckpointEvery: time.Millisecond, Backoff: fast,
				StallAfter: stallAfter, GiveUpAfter: giveUpAfter}
			run := func() (push.Stats, error, time.Duration) {
				if tc.source {
					opts.From = push.Remote(client.New(te.URL, src.Token, push.HTTPClient(0)), fast)
					opts.Target = clientOf(dst)
				} else {
					opts.Source = src.Dir
					opts.Target = client.New(te.URL, dst.Token, push.HTTPClient(0))
				}
				type result struct {
					st  push.Stats
					err error
				}
				done := make(chan result, 1)
				start := time.Now()
				go func() {
					st, err := push.Run(t.Context(), opts)
					done <- result{st, err}
				}()
				select {
				case r := <-done:
					return r.st, r.err, time.Since(start)
				case <-time.After(within):
					t.Fatalf("the push still runs after %s", within)
				}
				return push.Stats{}, nil, 0
			}

			te.set(tc.trouble, tc.skip)
			st, err, took := run()
			t.Logf("ended after %s: %v", took.Round(time.Millisecond), err)
			if !errors.Is(err, tc.want) {
				t.Fatalf("push = %v, want %v", err, tc.want)
			}
			if words := strings.Replace(tc.words, "%s", te.URL, 1); !strings.Contains(err.Error(), words) {
				t.Errorf("%q does not say %q", err, words)
			}
			if !strings.Contains(err.Error(), "check that it is running and can be reached") {
				t.Errorf("%q does not say what to do", err)
			}
			if took < tc.endsFrom {
				t.Errorf("ended after %s, before its bound of %s", took, tc.endsFrom)
			}
			if te.met.Load() == 0 || st.Complete || st.Done >= st.LastSeq {
				t.Fatalf("%d requests met the trouble; the push did %d of %d (%+v)", te.met.Load(), st.Done, st.LastSeq, st)
			}

			te.set(fine, 0)
			again, err, _ := run()
			if err != nil || !again.Complete {
				t.Fatalf("the second run, the engine well again: %v (%+v)", err, again)
			}
			if again.StartSeq != st.Done {
				t.Errorf("the second run went on after seq %d; the first stopped at %d", again.StartSeq, st.Done)
			}
			checkSame(t, src, dst)
		})
	}
}
