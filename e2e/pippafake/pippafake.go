// Package pippafake is the end-to-end tests' fake Pippa: an
// OpenAI-compatible chat-completions server on loopback whose answers come
// from a function of the request's content, which can be made slow or made
// to refuse. The harness (e2e/harness) and the real window's pictures
// (e2e/fakepippa) use it; it stands in for the model server, the one thing
// outside the project.
package pippafake

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"time"
)

// Server is a running fake Pippa.
type Server struct {
	URL string // base URL including /v1
	srv *http.Server
	// delay makes every answer wait; refuse makes it answer 400, so a
	// reading fails at once.
	delay  atomic.Int64 // nanoseconds
	refuse atomic.Bool
}

// Start serves on a free loopback port. answer gets the request's message
// contents joined (a photo's comes as an image_url part) and returns the
// reading.
func Start(answer func(content string) string) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("start the fake Pippa: %w", err)
	}
	p := &Server{URL: "http://" + ln.Addr().String() + "/v1"}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model    string `json:"model"`
			Messages []struct {
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, `{"error":{"message":"bad json"}}`, http.StatusBadRequest)
			return
		}
		if d := time.Duration(p.delay.Load()); d > 0 {
			select {
			case <-time.After(d):
			case <-r.Context().Done():
				return
			}
		}
		if p.refuse.Load() {
			http.Error(w, `{"error":{"message":"model 'fake-pippa' does not accept images today"}}`, http.StatusBadRequest)
			return
		}
		var all strings.Builder
		for _, m := range req.Messages {
			all.Write(m.Content)
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"id":      fmt.Sprintf("chatcmpl-fake%d", time.Now().UnixNano()),
			"object":  "chat.completion",
			"created": time.Now().Unix(),
			"model":   req.Model,
			"choices": []map[string]any{{"index": 0, "message": map[string]any{"role": "assistant", "content": answer(all.String())}, "finish_reason": "stop"}},
		})
	})
	p.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go p.srv.Serve(ln)
	return p, nil
}

// SetDelay makes every answer wait d (0: at once).
func (p *Server) SetDelay(d time.Duration) { p.delay.Store(int64(d)) }

// SetRefuse makes every answer a 400, or puts the answers back.
func (p *Server) SetRefuse(on bool) { p.refuse.Store(on) }

// HasImage tells whether a request's content holds a photo.
func HasImage(content string) bool { return strings.Contains(content, "image_url") }

// Close stops serving.
func (p *Server) Close() error { return p.srv.Close() }
