package main

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"time"
)

// fakePippa is the harness's fake Pippa: an OpenAI-compatible
// chat-completions server on loopback that answers every request at once
// with a fixed, friendly reading. It stands in for the model server, the
// one thing outside the project.
type fakePippa struct {
	URL string // base URL including /v1
	srv *http.Server
	// delay makes every answer wait (the slow Pippa of the live-update
	// test); refuse makes it answer 400, so the reading fails at once.
	delay  atomic.Int64 // nanoseconds
	refuse atomic.Bool
}

// fakeReading is what the fake Pippa says about a photo; the tests keep a
// phrase from it.
const fakeReading = "A bright afternoon in the garden: a path leads to a red door, and someone left a blue cup on the step."

func startFakePippa() (*fakePippa, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("start the fake Pippa: %w", err)
	}
	mux := http.NewServeMux()
	p := &fakePippa{URL: "http://" + ln.Addr().String() + "/v1"}
	mux.HandleFunc("POST /v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
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
		text := fakeReading
		var all strings.Builder
		for _, m := range req.Messages {
			all.Write(m.Content)
		}
		if !strings.Contains(all.String(), "image_url") {
			text = "Remembering together: the red door, the blue cup, and the afternoon light you kept."
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"id":      fmt.Sprintf("chatcmpl-fake%d", time.Now().UnixNano()),
			"object":  "chat.completion",
			"created": time.Now().Unix(),
			"model":   req.Model,
			"choices": []map[string]any{{"index": 0, "message": map[string]any{"role": "assistant", "content": text}, "finish_reason": "stop"}},
		})
	})
	p.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go p.srv.Serve(ln)
	return p, nil
}

func (p *fakePippa) Close() error { return p.srv.Close() }
