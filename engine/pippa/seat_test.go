package pippa_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/sparkfamily/spark/engine/pippa"
	"github.com/sparkfamily/spark/engine/pippa/pippatest"
)

var jpeg = []byte{0xFF, 0xD8, 0xFF, 0xE0, 'f', 'a', 'k', 'e', 0xFF, 0xD9}

func TestSeat_Read(t *testing.T) {
	srv := pippatest.New(t)
	srv.SetKey("sk-test")
	seat := pippa.New(srv.Config(), nil)
	if seat.Name() != "pippatest" {
		t.Errorf("Name = %q", seat.Name())
	}
	got, err := seat.Read(context.Background(), pippa.Request{Mode: pippa.ModePractical, Kind: "photo", Caption: "letter from the bank", Image: jpeg})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got, "letter from the bank") {
		t.Errorf("answer %q does not mention the caption", got)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || srv.Calls() != 1 {
		t.Fatalf("%d requests, %d calls; want 1", len(reqs), srv.Calls())
	}
	r := reqs[0]
	if r.Model != pippatest.Model || r.Authorization != "Bearer sk-test" {
		t.Errorf("model %q, authorization %q", r.Model, r.Authorization)
	}
	if len(r.Messages) != 2 || r.Messages[0].Role != "system" || r.Messages[1].Role != "user" {
		t.Fatalf("messages %+v, want a system and a user message", r.Messages)
	}
	if !strings.Contains(r.Messages[0].Text, "Pippa") {
		t.Errorf("system prompt %q does not introduce Pippa", r.Messages[0].Text)
	}
	want := []string{"data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(jpeg)}
	if diff := cmp.Diff(want, r.Images()); diff != "" {
		t.Errorf("images (-want +got):\n%s", diff)
	}
	if r.Caption() != "letter from the bank" || !strings.Contains(r.UserText(), "practical reading") {
		t.Errorf("user text %q", r.UserText())
	}
}

func TestSeat_Modes(t *testing.T) {
	srv := pippatest.New(t)
	seat := pippa.New(srv.Config(), nil)
	tests := []struct {
		name     string
		req      pippa.Request
		wantText []string
		images   int
	}{
		{"Practical", pippa.Request{Mode: "practical", Kind: "photo", Caption: "bill", Image: jpeg}, []string{"practical reading", "Caption: bill"}, 1},
		{"Careful", pippa.Request{Mode: "careful", Kind: "photo", Caption: "contract", Image: jpeg, ImageType: "image/png"}, []string{"careful, thorough", "Caption: contract"}, 1},
		{"Note", pippa.Request{Mode: "practical", Kind: "note", Caption: "call the doctor"}, []string{"a note", "Caption: call the doctor"}, 0},
		{"Recall", pippa.Request{Mode: "recall", Kind: "recall", Phrases: []string{"keep:pay by friday", "keep:pin is not shared"}}, []string{"quick-recall", "- keep:pay by friday", "- keep:pin is not shared"}, 0},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := seat.Read(context.Background(), tt.req); err != nil {
				t.Fatal(err)
			}
			r := srv.Requests()[i]
			for _, w := range tt.wantText {
				if !strings.Contains(r.UserText(), w) {
					t.Errorf("user text %q lacks %q", r.UserText(), w)
				}
			}
			if got := len(r.Images()); got != tt.images {
				t.Errorf("%d images sent, want %d", got, tt.images)
			}
			if tt.req.ImageType == "image/png" && !strings.HasPrefix(r.Images()[0], "data:image/png;base64,") {
				t.Errorf("image type not kept: %.30s", r.Images()[0])
			}
		})
	}
	t.Run("BadMode", func(t *testing.T) {
		calls := srv.Calls()
		for _, req := range []pippa.Request{{Mode: "poetic"}, {Mode: "recall"}} {
			_, err := seat.Read(context.Background(), req)
			if !errors.Is(err, pippa.ErrMode) || pippa.IsTransient(err) {
				t.Errorf("Read(%+v) = %v, want a permanent ErrMode", req, err)
			}
		}
		if srv.Calls() != calls {
			t.Error("a bad request reached the server")
		}
	})
}

func TestSeat_Errors(t *testing.T) {
	tests := []struct {
		status    int
		transient bool
		inMessage string
	}{
		{400, false, "Invalid request"},
		{401, false, "API key"},
		{403, false, "Forbidden"},
		{404, false, "does not exist"},
		{408, true, "Request Timeout"},
		{425, true, "Too Early"},
		{429, true, "Rate limit"},
		{500, true, "server had an error"},
		{502, true, "server had an error"},
		{503, true, "server had an error"},
	}
	srv := pippatest.New(t)
	seat := pippa.New(srv.Config(), nil)
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.status), func(t *testing.T) {
			srv.FailNext(1, tt.status)
			_, err := seat.Read(context.Background(), pippa.Request{Mode: "practical", Caption: "x"})
			var he *pippa.HTTPError
			if !errors.As(err, &he) || he.Status != tt.status {
				t.Fatalf("Read = %v, want an *HTTPError with status %d", err, tt.status)
			}
			if got := pippa.IsTransient(err); got != tt.transient {
				t.Errorf("IsTransient = %v, want %v", got, tt.transient)
			}
			if !strings.Contains(err.Error(), tt.inMessage) {
				t.Errorf("error %q lacks %q", err, tt.inMessage)
			}
			if tt.status == 429 && he.RetryAfter != time.Second {
				t.Errorf("RetryAfter = %v, want 1s", he.RetryAfter)
			}
			// The next request succeeds again.
			if _, err := seat.Read(context.Background(), pippa.Request{Mode: "practical", Caption: "x"}); err != nil {
				t.Errorf("Read after the failure = %v", err)
			}
		})
	}
	t.Run("WrongKey", func(t *testing.T) {
		srv := pippatest.New(t)
		srv.SetKey("sk-right")
		cfg := srv.Config()
		cfg.Key = "sk-wrong"
		_, err := pippa.New(cfg, nil).Read(context.Background(), pippa.Request{Mode: "practical", Caption: "x"})
		var he *pippa.HTTPError
		if !errors.As(err, &he) || he.Status != 401 || he.Code != "invalid_api_key" || pippa.IsTransient(err) {
			t.Errorf("Read with a wrong key = %v, want a permanent 401 invalid_api_key", err)
		}
	})
}

func TestSeat_Timeout(t *testing.T) {
	srv := pippatest.New(t)
	srv.SetDelay(5 * time.Second)
	cfg := srv.Config()
	cfg.Timeout = 50 * time.Millisecond
	start := time.Now()
	_, err := pippa.New(cfg, nil).Read(context.Background(), pippa.Request{Mode: "practical", Caption: "slow"})
	if err == nil || !pippa.IsTransient(err) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Read past the timeout = %v, want a transient deadline error", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Read took %v with a 50ms timeout", d)
	}
	// A caller that cancels is not told to retry.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = pippa.New(srv.Config(), nil).Read(ctx, pippa.Request{Mode: "practical", Caption: "slow"})
	if err == nil || pippa.IsTransient(err) {
		t.Errorf("Read with a canceled context = %v, want a permanent error", err)
	}
}

func TestSeat_NetworkError(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	_, err = pippa.New(pippa.Config{URL: "http://" + addr + "/v1", Model: "m"}, nil).Read(context.Background(), pippa.Request{Mode: "practical", Caption: "x"})
	if err == nil || !pippa.IsTransient(err) || !strings.Contains(err.Error(), addr) {
		t.Errorf("Read from a closed port = %v, want a transient error naming the address", err)
	}
}

func TestSeat_Answers(t *testing.T) {
	tests := []struct {
		name      string
		status    int
		body      string
		want      string
		wantErr   error
		transient bool
	}{
		{"String", 200, `{"choices":[{"index":0,"message":{"role":"assistant","content":"  hello  "}}]}`, "hello", nil, false},
		{"Parts", 200, `{"choices":[{"message":{"role":"assistant","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}}]}`, "ab", nil, false},
		{"EmptyContent", 200, `{"choices":[{"message":{"role":"assistant","content":""}}]}`, "", pippa.ErrEmptyAnswer, false},
		{"NullContent", 200, `{"choices":[{"message":{"role":"assistant","content":null}}]}`, "", pippa.ErrEmptyAnswer, false},
		{"NoChoices", 200, `{"choices":[]}`, "", pippa.ErrEmptyAnswer, false},
		{"NotJSON", 200, `<html>hello</html>`, "", pippa.ErrBadAnswer, false},
		{"OllamaError", 404, `{"error":{"message":"model \"llava\" not found, try pulling it first","type":"api_error","param":null,"code":null}}`, "", nil, false},
		{"LlamaCppError", 503, `{"error":{"code":503,"message":"Loading model","type":"unavailable_error"}}`, "", nil, true},
		{"StringError", 500, `{"error":"boom"}`, "", nil, true},
		{"PlainText", 502, `Bad Gateway`, "", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(tt.status)
				w.Write([]byte(tt.body))
			}))
			defer ts.Close()
			got, err := pippa.New(pippa.Config{URL: ts.URL + "/v1/", Model: "m"}, ts.Client()).Read(context.Background(), pippa.Request{Mode: "practical", Caption: "x"})
			if tt.status == 200 && tt.wantErr == nil {
				if err != nil || got != tt.want {
					t.Fatalf("Read = %q, %v; want %q", got, err, tt.want)
				}
				return
			}
			if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Fatalf("Read = %v, want %v", err, tt.wantErr)
			}
			if err == nil || pippa.IsTransient(err) != tt.transient {
				t.Fatalf("Read = %v, transient %v; want transient %v", err, pippa.IsTransient(err), tt.transient)
			}
			var he *pippa.HTTPError
			if tt.status != 200 {
				if !errors.As(err, &he) || he.Status != tt.status {
					t.Fatalf("Read = %v, want an *HTTPError", err)
				}
				quoted, _ := json.Marshal(he.Message)
				if he.Message == "" || !strings.Contains(tt.body, strings.Trim(string(quoted), `"`)) {
					t.Errorf("Message %q is not the server's message", he.Message)
				}
			}
		})
	}
}

func TestIsTransient(t *testing.T) {
	tests := []struct {
		err  error
		want bool
	}{
		{nil, false},
		{errors.New("something else"), false},
		{context.Canceled, false},
		{fmt.Errorf("wrapped: %w", context.DeadlineExceeded), true},
		{&pippa.HTTPError{Status: 429}, true},
		{fmt.Errorf("turn: %w", &pippa.HTTPError{Status: 500}), true},
		{&pippa.HTTPError{Status: 401}, false},
		{&pippa.HTTPError{Status: 404}, false},
		{pippa.ErrEmptyAnswer, false},
	}
	for _, tt := range tests {
		if got := pippa.IsTransient(tt.err); got != tt.want {
			t.Errorf("IsTransient(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}

func TestConfigFromEnv(t *testing.T) {
	t.Setenv(pippa.EnvURL, "")
	if _, ok := pippa.ConfigFromEnv(); ok {
		t.Error("ConfigFromEnv with no URL reported a seat")
	}
	t.Setenv(pippa.EnvURL, " http://127.0.0.1:11434/v1 ")
	t.Setenv(pippa.EnvModel, "llava")
	t.Setenv(pippa.EnvKey, "")
	got, ok := pippa.ConfigFromEnv()
	want := pippa.Config{URL: "http://127.0.0.1:11434/v1", Model: "llava"}
	if !ok || got != want {
		t.Errorf("ConfigFromEnv = %+v, %v; want %+v", got, ok, want)
	}
	if err := got.Check(); err != nil {
		t.Errorf("Check = %v", err)
	}
	for _, bad := range []pippa.Config{{}, {URL: "127.0.0.1:11434", Model: "m"}, {URL: "http://x/v1"}} {
		if err := bad.Check(); err == nil {
			t.Errorf("Check(%+v) = nil", bad)
		}
	}
}

func TestConfig_JSON(t *testing.T) {
	c := pippa.Config{Name: "home", URL: "http://127.0.0.1:11434/v1", Model: "llava", Key: "k", Timeout: 90 * time.Second}
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"name":"home","url":"http://127.0.0.1:11434/v1","model":"llava","key":"k","timeout":"1m30s"}`; string(b) != want {
		t.Errorf("Marshal = %s, want %s", b, want)
	}
	var got pippa.Config
	if err := json.Unmarshal(b, &got); err != nil || got != c {
		t.Errorf("Unmarshal = %+v, %v", got, err)
	}
	if err := json.Unmarshal([]byte(`{"url":"u","model":"m","timeout":5000000000}`), &got); err != nil || got.Timeout != 5*time.Second {
		t.Errorf("Unmarshal of nanoseconds = %+v, %v", got, err)
	}
	for _, bad := range []string{`{"timeout":"soon"}`, `{"timeout":-1}`, `{"timeout":true}`, `[]`} {
		if err := json.Unmarshal([]byte(bad), &got); err == nil {
			t.Errorf("Unmarshal(%s) succeeded", bad)
		}
	}
}

func TestPippatest_RejectsBadRequests(t *testing.T) {
	srv := pippatest.New(t)
	tests := []struct {
		name string
		body string
		want string
	}{
		{"NotJSON", `{`, "parse the JSON"},
		{"NoModel", `{"messages":[{"role":"user","content":"hi"}]}`, "model"},
		{"NoMessages", `{"model":"m","messages":[]}`, "messages"},
		{"BadRole", `{"model":"m","messages":[{"role":"robot","content":"hi"}]}`, "role"},
		{"BadPart", `{"model":"m","messages":[{"role":"user","content":[{"type":"audio"}]}]}`, "type"},
		{"NotDataURL", `{"model":"m","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"http://x/a.jpg"}}]}]}`, "data URL"},
		{"BadBase64", `{"model":"m","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/jpeg;base64,!!!"}}]}]}`, "base64"},
		{"NotImage", `{"model":"m","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:text/plain;base64,aGk="}}]}]}`, "MIME"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := http.Post(srv.URL()+"/chat/completions", "application/json", bytes.NewReader([]byte(tt.body)))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var e struct {
				Error struct {
					Message string `json:"message"`
					Type    string `json:"type"`
				} `json:"error"`
			}
			if err := json.NewDecoder(resp.Body).Decode(&e); err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != 400 || e.Error.Type != "invalid_request_error" || !strings.Contains(e.Error.Message, tt.want) {
				t.Errorf("answer %d %+v, want 400 invalid_request_error mentioning %q", resp.StatusCode, e.Error, tt.want)
			}
		})
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d bad requests were recorded", n)
	}
}

func TestPippatest_Answer(t *testing.T) {
	srv := pippatest.New(t)
	srv.SetReply(func(r pippatest.ChatRequest) string { return "custom for " + r.Caption() })
	body := `{"model":"m","messages":[{"role":"user","content":"Caption: cat"}]}`
	resp, err := http.Post(srv.URL()+"/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var a struct {
		ID      string `json:"id"`
		Object  string `json:"object"`
		Created int64  `json:"created"`
		Model   string `json:"model"`
		Choices []struct {
			Index   int `json:"index"`
			Message struct {
				Role    string `json:"role"`
				Content string `json:"content"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
		Usage struct {
			TotalTokens int `json:"total_tokens"`
		} `json:"usage"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&a); err != nil {
		t.Fatal(err)
	}
	if a.Object != "chat.completion" || a.ID == "" || a.Created == 0 || a.Model != "m" || len(a.Choices) != 1 ||
		a.Choices[0].Message.Role != "assistant" || a.Choices[0].Message.Content != "custom for cat" ||
		a.Choices[0].FinishReason != "stop" || a.Usage.TotalTokens == 0 {
		t.Errorf("answer %+v is not shaped like OpenAI's", a)
	}
	resp2, err := http.Get(srv.URL() + "/models")
	if err != nil {
		t.Fatal(err)
	}
	resp2.Body.Close()
	if resp2.StatusCode != 404 {
		t.Errorf("GET /v1/models = %d, want 404", resp2.StatusCode)
	}
}
