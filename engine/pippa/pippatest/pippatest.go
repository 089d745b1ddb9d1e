// Package pippatest is the project's one fake Pippa: an OpenAI-compatible
// chat-completions server on 127.0.0.1 that checks the shape of each
// request like the real API, answers with the real API's JSON, counts and
// records the calls, and can be told to fail, to refuse, to be slow, what
// to answer, or to answer what is not a chat completion at all. It stands
// in for the model server, the one thing outside the project: Go tests
// take it with New, and the end-to-end harness
// (e2e/harness) and the real window's pictures (e2e/cmd/windowpippa) with Start.
package pippatest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sparkfamily/spark/engine/pippa"
)

// Model is the model name of Config.
const Model = "pippa-test"

// ChatRequest is a request the server received, decoded.
type ChatRequest struct {
	Model         string
	Messages      []ChatMessage
	Authorization string          // the Authorization header as sent
	Raw           json.RawMessage // the whole body
}

// ChatMessage is one message of a request, its content flattened.
type ChatMessage struct {
	Role   string
	Text   string   // the text parts (or the string content), joined by newlines
	Images []string // the image_url parts' URLs (data URLs)
}

// UserText returns the text of the last user message.
func (r ChatRequest) UserText() string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "user" {
			return r.Messages[i].Text
		}
	}
	return ""
}

// Images returns the image URLs of all messages.
func (r ChatRequest) Images() []string {
	var out []string
	for _, m := range r.Messages {
		out = append(out, m.Images...)
	}
	return out
}

// Caption returns the caption the seat put in the user text ("Caption: ..."
// line), or "".
func (r ChatRequest) Caption() string {
	for _, line := range strings.Split(r.UserText(), "\n") {
		if c, ok := strings.CutPrefix(line, "Caption: "); ok {
			return c
		}
	}
	return ""
}

// Server is the fake. Its methods are safe for concurrent use.
type Server struct {
	ts *httptest.Server

	mu       sync.Mutex
	calls    int
	requests []ChatRequest
	failN    int
	failCode int
	delay    time.Duration
	reply    func(ChatRequest) string
	key      string
	echo     bool
	refuse   bool
	raw      string
}

// New starts a fake server on 127.0.0.1, closed at the end of the test.
func New(tb testing.TB) *Server {
	tb.Helper()
	s, err := Start()
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(s.Close)
	return s
}

// Start starts a fake server on 127.0.0.1 for a program (the end-to-end
// harness, the window's pictures); Close stops it.
func Start() (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("start the fake Pippa: %w", err)
	}
	s := &Server{}
	s.ts = &httptest.Server{Listener: ln, Config: &http.Server{Handler: http.HandlerFunc(s.serve), ReadHeaderTimeout: 5 * time.Second}}
	s.ts.Start()
	return s, nil
}

// Close stops the server.
func (s *Server) Close() { s.ts.Close() }

// URL returns the base URL, including /v1.
func (s *Server) URL() string { return s.ts.URL + "/v1" }

// Config returns a seat config pointing at the server.
func (s *Server) Config() pippa.Config {
	s.mu.Lock()
	defer s.mu.Unlock()
	return pippa.Config{Name: "pippatest", URL: s.URL(), Model: Model, Key: s.key, Timeout: 10 * time.Second}
}

// Calls returns how many requests reached the chat-completions route,
// answered or failed.
func (s *Server) Calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls
}

// Requests returns the well-formed requests received, in order, including
// those failed on purpose by FailNext.
func (s *Server) Requests() []ChatRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]ChatRequest(nil), s.requests...)
}

// FailNext makes the next n requests fail with that HTTP status and an
// OpenAI-style error body.
func (s *Server) FailNext(n int, status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failN, s.failCode = n, status
}

// SetDelay makes every answer wait d (or until the client gives up).
func (s *Server) SetDelay(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.delay = d
}

// SetRefuse makes every request fail with 400, as a model that takes no
// photos does, until it is called with false: a reading fails at once.
func (s *Server) SetRefuse(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refuse = on
}

// SetRawAnswer makes every request answered 200 with body as it is (no
// chat completion around it), as a URL that points at some other server
// does; "" restores chat completions.
func (s *Server) SetRawAnswer(body string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.raw = body
}

// SetReply sets the text answered to each request; nil restores the
// default, Reply.
func (s *Server) SetReply(f func(ChatRequest) string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reply = f
}

// SetKey makes the server require "Authorization: Bearer key", as the real
// API does; Config then carries the key. An empty key accepts any request,
// as Ollama does.
func (s *Server) SetKey(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.key = key
}

// SetEcho makes the server's error messages quote what the request
// carried, as careless servers and proxies do: a refused key is quoted
// whole, and an unknown URL with its query. Tests use it to check that
// such secrets never reach a stored error or a log line.
func (s *Server) SetEcho(echo bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.echo = echo
}

// Reply is the default answer: deterministic, naming the caption (or the
// start of the user text) and the number of images.
func Reply(r ChatRequest) string {
	subject := r.Caption()
	if subject == "" {
		subject = firstLine(r.UserText())
	}
	return fmt.Sprintf("Pippa's reading of %q (%d image(s), model %s): it is a letter; nothing to do.", subject, len(r.Images()), r.Model)
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	echo := s.echo
	s.mu.Unlock()
	if r.URL.Path != "/v1/chat/completions" {
		u := r.URL.Path
		if echo {
			u = r.URL.RequestURI()
		}
		writeError(w, http.StatusNotFound, "invalid_request_error", "unknown_url", fmt.Sprintf("Unknown request URL: %s %s.", r.Method, u))
		return
	}
	if r.Method != http.MethodPost {
		writeError(w, http.StatusMethodNotAllowed, "invalid_request_error", "method_not_allowed", fmt.Sprintf("Not allowed to %s on %s.", r.Method, r.URL.Path))
		return
	}
	s.mu.Lock()
	s.calls++
	key, delay := s.key, s.delay
	s.mu.Unlock()

	if key != "" && r.Header.Get("Authorization") != "Bearer "+key {
		msg := "Incorrect API key provided. You can find your API key in your account settings."
		if echo {
			sent, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
			msg = fmt.Sprintf("Incorrect API key provided: %s (sent as Authorization: %s). You can find your API key in your account settings.", sent, r.Header.Get("Authorization"))
		}
		writeError(w, http.StatusUnauthorized, "invalid_request_error", "invalid_api_key", msg)
		return
	}
	req, err := decode(r)
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "", err.Error())
		return
	}

	s.mu.Lock()
	s.requests = append(s.requests, req)
	fail := 0
	if s.failN > 0 {
		s.failN--
		fail = s.failCode
	}
	reply, refuse, raw := s.reply, s.refuse, s.raw
	s.mu.Unlock()

	if delay > 0 {
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		}
	}
	if fail != 0 {
		failWith(w, fail)
		return
	}
	if refuse {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "", "model '"+req.Model+"' does not accept images today")
		return
	}
	if raw != "" {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(raw))
		return
	}
	if reply == nil {
		reply = Reply
	}
	text := reply(req)
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"id":      fmt.Sprintf("chatcmpl-test%d", time.Now().UnixNano()),
		"object":  "chat.completion",
		"created": time.Now().Unix(),
		"model":   req.Model,
		"choices": []map[string]any{{
			"index":         0,
			"message":       map[string]any{"role": "assistant", "content": text},
			"logprobs":      nil,
			"finish_reason": "stop",
		}},
		"usage": map[string]int{
			"prompt_tokens":     len(req.Raw) / 4,
			"completion_tokens": len(text) / 4,
			"total_tokens":      len(req.Raw)/4 + len(text)/4,
		},
	})
}

// failWith answers status with the body the real API gives for it.
func failWith(w http.ResponseWriter, status int) {
	switch status {
	case http.StatusUnauthorized:
		writeError(w, status, "invalid_request_error", "invalid_api_key", "Incorrect API key provided. You can find your API key in your account settings.")
	case http.StatusNotFound:
		writeError(w, status, "invalid_request_error", "model_not_found", "The model `"+Model+"` does not exist or you do not have access to it.")
	case http.StatusTooManyRequests:
		w.Header().Set("Retry-After", "1")
		writeError(w, status, "requests", "rate_limit_exceeded", "Rate limit reached for requests. Please try again in 1s.")
	case http.StatusBadRequest:
		writeError(w, status, "invalid_request_error", "", "Invalid request.")
	default:
		if status >= 500 {
			writeError(w, status, "server_error", "", "The server had an error while processing your request. Sorry about that!")
			return
		}
		writeError(w, status, "invalid_request_error", "", http.StatusText(status))
	}
}

// writeError writes an OpenAI-style error body.
func writeError(w http.ResponseWriter, status int, typ, code, msg string) {
	var c any
	if code != "" {
		c = code
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{
		"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": c},
	})
}

// decode reads and checks a chat-completions request the way the real API
// does, as far as Spark's requests go.
func decode(r *http.Request) (ChatRequest, error) {
	var req ChatRequest
	req.Authorization = r.Header.Get("Authorization")
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		return req, fmt.Errorf("Content-Type must be application/json, got %q", ct)
	}
	var raw json.RawMessage
	if err := json.NewDecoder(http.MaxBytesReader(nil, r.Body, 64<<20)).Decode(&raw); err != nil {
		return req, fmt.Errorf("We could not parse the JSON body of your request: %v", err)
	}
	req.Raw = raw
	var body struct {
		Model    *string `json:"model"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(raw, &body); err != nil {
		return req, fmt.Errorf("Invalid request body: %v", err)
	}
	if body.Model == nil || *body.Model == "" {
		return req, fmt.Errorf("you must provide a model parameter")
	}
	req.Model = *body.Model
	if len(body.Messages) == 0 {
		return req, fmt.Errorf("'messages' must contain at least one message")
	}
	for i, m := range body.Messages {
		switch m.Role {
		case "system", "developer", "user", "assistant", "tool":
		default:
			return req, fmt.Errorf("Invalid value for 'messages[%d].role': %q", i, m.Role)
		}
		msg := ChatMessage{Role: m.Role}
		var text string
		if err := json.Unmarshal(m.Content, &text); err == nil {
			msg.Text = text
			req.Messages = append(req.Messages, msg)
			continue
		}
		var parts []struct {
			Type     string  `json:"type"`
			Text     *string `json:"text"`
			ImageURL *struct {
				URL string `json:"url"`
			} `json:"image_url"`
		}
		if err := json.Unmarshal(m.Content, &parts); err != nil || len(parts) == 0 {
			return req, fmt.Errorf("Invalid 'messages[%d].content': expected a string or a non-empty array of content parts", i)
		}
		var texts []string
		for j, p := range parts {
			switch p.Type {
			case "text":
				if p.Text == nil {
					return req, fmt.Errorf("Missing required parameter: 'messages[%d].content[%d].text'", i, j)
				}
				texts = append(texts, *p.Text)
			case "image_url":
				if m.Role != "user" {
					return req, fmt.Errorf("Image URLs are only allowed for messages with role 'user', but this message with role '%s' contains an image URL", m.Role)
				}
				if p.ImageURL == nil {
					return req, fmt.Errorf("Missing required parameter: 'messages[%d].content[%d].image_url'", i, j)
				}
				if err := checkDataURL(p.ImageURL.URL); err != nil {
					return req, fmt.Errorf("Invalid 'messages[%d].content[%d].image_url.url': %v", i, j, err)
				}
				msg.Images = append(msg.Images, p.ImageURL.URL)
			default:
				return req, fmt.Errorf("Invalid value for 'messages[%d].content[%d].type': %q", i, j, p.Type)
			}
		}
		msg.Text = strings.Join(texts, "\n")
		req.Messages = append(req.Messages, msg)
	}
	return req, nil
}

// checkDataURL checks a base64 image data URL.
func checkDataURL(u string) error {
	rest, ok := strings.CutPrefix(u, "data:")
	if !ok {
		return fmt.Errorf("expected a base64-encoded data URL with an image MIME type (e.g. 'data:image/png;base64,...')")
	}
	mime, data, ok := strings.Cut(rest, ";base64,")
	if !ok || !strings.HasPrefix(mime, "image/") {
		return fmt.Errorf("expected a base64-encoded data URL with an image MIME type, got %q", prefix(u))
	}
	b, err := base64.StdEncoding.DecodeString(data)
	if err != nil || len(b) == 0 {
		return fmt.Errorf("the image data is not valid base64")
	}
	return nil
}

func prefix(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}
