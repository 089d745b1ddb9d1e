package pippa

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/internal/retry"
	"github.com/sparkfamily/spark/internal/version"
)

// Errors of a seat, besides *HTTPError and network errors.
var (
	// ErrEmptyAnswer is returned when the model answered with no text.
	ErrEmptyAnswer = errors.New("pippa: the model answered with no text")
	// ErrBadAnswer is returned when the answer is not a chat completion
	// (the URL may point at something that is not an OpenAI-compatible API).
	ErrBadAnswer = errors.New("pippa: the answer is not an OpenAI chat completion")
	// ErrMode is returned for a request with an unknown mode, or a recall
	// without phrases.
	ErrMode = errors.New("pippa: bad request mode")
)

// maxAnswer bounds the bytes read from a seat's answer.
const maxAnswer = 8 << 20

// HTTPError is a seat's answer with a status other than 200.
type HTTPError struct {
	Seat       string
	Status     int
	Message    string // the server's error message
	Type, Code string // OpenAI's error type and code, when given
	// RetryAfter is the seat's Retry-After, 0 when it gave none: the turn
	// runner waits at least that long before asking again.
	RetryAfter time.Duration
}

func (e *HTTPError) Error() string {
	msg := fmt.Sprintf("pippa: seat %s answered %d %s: %s", e.Seat, e.Status, http.StatusText(e.Status), e.Message)
	switch {
	case e.Status == http.StatusUnauthorized || e.Status == http.StatusForbidden:
		msg += " (check the seat's API key, e.g. SPARK_BRAIN_KEY)"
	case e.Status == http.StatusNotFound:
		msg += " (check the seat's URL, which must end in /v1, and that the model exists there)"
	}
	return msg
}

// IsTransient reports whether asking again later may succeed: network
// errors, timeouts and the statuses retry.Passing names (408, 425, 429,
// 5xx). Other answers (a bad key, an unknown model, an empty answer, a
// canceled request) will not get better by themselves.
func IsTransient(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, context.Canceled) {
		return false
	}
	var he *HTTPError
	if errors.As(err, &he) {
		return retry.Passing(he.Status)
	}
	if errors.Is(err, ErrEmptyAnswer) || errors.Is(err, ErrBadAnswer) || errors.Is(err, ErrMode) {
		return false
	}
	var te *transportError
	return errors.As(err, &te) || errors.Is(err, context.DeadlineExceeded)
}

// FailCode says why a seat's error failed a reading, as a code of
// api.ReadFailCodes, by the error's type: a transient error (IsTransient)
// is a seat that could not be reached or did not answer; an *HTTPError
// otherwise a refusal; ErrBadAnswer and ErrEmptyAnswer an answer with
// nothing to read; anything else (a request Spark could not make)
// api.ReadFailed.
func FailCode(err error) string {
	var he *HTTPError
	switch {
	case IsTransient(err):
		return api.ReadPippaUnreachable
	case errors.Is(err, ErrBadAnswer) || errors.Is(err, ErrEmptyAnswer):
		return api.ReadPippaAnswerUnreadable
	case errors.As(err, &he):
		return api.ReadPippaRefused
	}
	return api.ReadFailed
}

// transportError marks a failure to reach the seat or to read its whole
// answer: the network, not the model.
type transportError struct{ err error }

func (e *transportError) Error() string { return e.err.Error() }
func (e *transportError) Unwrap() error { return e.err }

// seat is the OpenAI chat-completions seat.
type seat struct {
	cfg Config
	hc  *http.Client
}

// New returns the seat that speaks OpenAI chat-completions to cfg.URL. A nil
// hc means http.DefaultClient; each request is bounded by cfg.Timeout.
func New(cfg Config, hc *http.Client) Seat {
	if hc == nil {
		hc = http.DefaultClient
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	cfg.URL = strings.TrimRight(cfg.URL, "/")
	return &seat{cfg: cfg, hc: hc}
}

func (s *seat) Name() string {
	if s.cfg.Name != "" {
		return s.cfg.Name
	}
	return s.cfg.Model
}

// The request and answer of chat completions, as much as Pippa uses.
type (
	chatRequest struct {
		Model    string        `json:"model"`
		Messages []chatMessage `json:"messages"`
	}
	chatMessage struct {
		Role    string `json:"role"`
		Content any    `json:"content"` // a string or []contentPart
	}
	contentPart struct {
		Type     string    `json:"type"`
		Text     string    `json:"text,omitempty"`
		ImageURL *imageURL `json:"image_url,omitempty"`
	}
	imageURL struct {
		URL string `json:"url"`
	}
	chatAnswer struct {
		Choices []struct {
			Message struct {
				Content json.RawMessage `json:"content"`
			} `json:"message"`
		} `json:"choices"`
	}
	errorAnswer struct {
		Error json.RawMessage `json:"error"`
	}
	errorBody struct {
		Message string          `json:"message"`
		Type    string          `json:"type"`
		Code    json.RawMessage `json:"code"`
	}
)

// Read asks the model and returns its text. Its error's message is
// redacted (Redact): it names the seat's URL and quotes the server, which
// may echo the key.
func (s *seat) Read(ctx context.Context, req Request) (string, error) {
	text, err := s.read(ctx, req)
	return text, s.cfg.redactError(err)
}

func (s *seat) read(ctx context.Context, req Request) (string, error) {
	body, err := s.body(req)
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, s.cfg.URL+"/chat/completions", bytes.NewReader(body))
	if err != nil {
		return "", fmt.Errorf("pippa: seat %s: bad URL %q: %w", s.Name(), s.cfg.URL, err)
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "application/json")
	hreq.Header.Set("User-Agent", "spark-engine/"+version.Version)
	if s.cfg.Key != "" {
		hreq.Header.Set("Authorization", "Bearer "+s.cfg.Key)
	}
	resp, err := s.hc.Do(hreq)
	if err != nil {
		return "", &transportError{fmt.Errorf("pippa: seat %s: ask %s: %w", s.Name(), s.cfg.URL, err)}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		return "", &transportError{fmt.Errorf("pippa: seat %s: read the answer: %w", s.Name(), err)}
	}
	if resp.StatusCode != http.StatusOK {
		return "", s.httpError(resp, b)
	}
	return s.parse(b)
}

// body encodes the chat request for req.
func (s *seat) body(req Request) ([]byte, error) {
	text, err := userText(req)
	if err != nil {
		return nil, err
	}
	parts := []contentPart{{Type: "text", Text: text}}
	if len(req.Image) > 0 && req.Mode != ModeRecall {
		typ := req.ImageType
		if typ == "" {
			typ = "image/jpeg"
		}
		parts = append(parts, contentPart{Type: "image_url", ImageURL: &imageURL{
			URL: "data:" + typ + ";base64," + base64.StdEncoding.EncodeToString(req.Image),
		}})
	}
	b, err := json.Marshal(chatRequest{
		Model: s.cfg.Model,
		Messages: []chatMessage{
			{Role: "system", Content: systemPrompt},
			{Role: "user", Content: parts},
		},
	})
	if err != nil {
		return nil, fmt.Errorf("pippa: encode the request: %w", err)
	}
	return b, nil
}

// parse takes the text out of a chat completion.
func (s *seat) parse(b []byte) (string, error) {
	var a chatAnswer
	if err := json.Unmarshal(b, &a); err != nil {
		return "", fmt.Errorf("%w: seat %s: %v (answer begins %q)", ErrBadAnswer, s.Name(), err, prefix(b))
	}
	if len(a.Choices) == 0 {
		return "", fmt.Errorf("%w: seat %s answered no choices", ErrEmptyAnswer, s.Name())
	}
	raw := a.Choices[0].Message.Content
	var text string
	if err := json.Unmarshal(raw, &text); err != nil {
		// Some servers answer content as an array of parts.
		var parts []contentPart
		if err := json.Unmarshal(raw, &parts); err != nil {
			return "", fmt.Errorf("%w: seat %s: message content %q is neither text nor parts", ErrBadAnswer, s.Name(), prefix(raw))
		}
		var sb strings.Builder
		for _, p := range parts {
			if p.Type == "text" || p.Type == "output_text" {
				sb.WriteString(p.Text)
			}
		}
		text = sb.String()
	}
	text = strings.TrimSpace(text)
	if text == "" {
		return "", fmt.Errorf("%w (seat %s)", ErrEmptyAnswer, s.Name())
	}
	return text, nil
}

// answerError builds the *HTTPError of an answer that is not 200, taking
// the message from an OpenAI-style error body when there is one.
func (s *seat) answerError(resp *http.Response, b []byte) *HTTPError {
	he := &HTTPError{Seat: s.Name(), Status: resp.StatusCode}
	he.RetryAfter = retry.ParseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
	var ea errorAnswer
	if json.Unmarshal(b, &ea) == nil && len(ea.Error) > 0 {
		var eb errorBody
		var msg string
		if json.Unmarshal(ea.Error, &eb) == nil && eb.Message != "" {
			he.Message, he.Type = eb.Message, eb.Type
			var code string
			if json.Unmarshal(eb.Code, &code) == nil {
				he.Code = code
			} else if len(eb.Code) > 0 && string(eb.Code) != "null" {
				he.Code = string(eb.Code)
			}
			return he
		} else if json.Unmarshal(ea.Error, &msg) == nil && msg != "" {
			he.Message = msg
			return he
		}
	}
	he.Message = strings.TrimSpace(string(prefix(b)))
	if he.Message == "" {
		he.Message = "(no message)"
	}
	return he
}

// httpError builds the *HTTPError of an answer that is not 200, its
// message redacted: servers quote the key they refused.
func (s *seat) httpError(resp *http.Response, b []byte) *HTTPError {
	he := s.answerError(resp, b)
	he.Message = s.cfg.Redact(he.Message)
	return he
}

// prefix returns the start of b, for error messages.
func prefix(b []byte) []byte {
	if len(b) > 200 {
		return b[:200]
	}
	return b
}
