// Package pippa holds Pippa's brain seats: the model endpoints that read a
// moment for Dad.
//
// A seat is an OpenAI-compatible chat-completions endpoint (a base URL, a
// model and an optional API key), which covers OpenAI itself, Ollama
// (http://127.0.0.1:11434/v1, no key) and a llama.cpp server. The engine
// asks a seat through the small Seat interface, so tests can use the fake
// server of engine/pippa/pippatest.
package pippa

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
)

// Request is what a turn asks Pippa.
type Request struct {
	Mode    string // "practical", "careful" or "recall"
	Kind    string // the moment's kind: "photo", "note" or "recall"
	Caption string
	// Words are the words found in the photo on Dad's computer, if any:
	// given with the photo, they help with small print.
	Words     string
	Image     []byte // the moment's small copy, if any
	ImageType string // its media type; "image/jpeg" when empty
	Phrases   []string
}

// Modes of a Request.
const (
	ModePractical = "practical"
	ModeCareful   = "careful"
	ModeRecall    = "recall"
)

// Seat is one brain Pippa can think with.
type Seat interface {
	// Name names the seat in turns and logs.
	Name() string
	// Read asks the seat for a reading. Its errors are classified by
	// IsTransient: worth asking again later, or not.
	Read(ctx context.Context, req Request) (string, error)
}

// DefaultTimeout bounds one request to a seat when Config.Timeout is zero.
// Local models reading an image on a small machine can take a while.
const DefaultTimeout = 120 * time.Second

// Config describes a seat.
type Config struct {
	Name  string // shown on turns; defaults to the model
	URL   string // base URL including /v1, e.g. http://127.0.0.1:11434/v1
	Model string
	Key   string // API key, sent as a bearer token when set
	// Timeout bounds one request; DefaultTimeout when zero.
	Timeout time.Duration
}

// configJSON is Config in engine.json: the timeout is written as a Go
// duration ("2m0s") and read from such a string or from nanoseconds.
type configJSON struct {
	Name    string          `json:"name,omitempty"`
	URL     string          `json:"url"`
	Model   string          `json:"model"`
	Key     string          `json:"key,omitempty"`
	Timeout json.RawMessage `json:"timeout,omitempty"`
}

// MarshalJSON writes the config with lower-case keys and the timeout as a
// duration string.
func (c Config) MarshalJSON() ([]byte, error) {
	j := configJSON{Name: c.Name, URL: c.URL, Model: c.Model, Key: c.Key}
	if c.Timeout != 0 {
		j.Timeout, _ = json.Marshal(c.Timeout.String())
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads what MarshalJSON writes; the timeout may also be a
// number of nanoseconds.
func (c *Config) UnmarshalJSON(b []byte) error {
	var j configJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return fmt.Errorf("pippa: seat config: %w", err)
	}
	*c = Config{Name: j.Name, URL: j.URL, Model: j.Model, Key: j.Key}
	if len(j.Timeout) == 0 || string(j.Timeout) == "null" {
		return nil
	}
	var s string
	if err := json.Unmarshal(j.Timeout, &s); err == nil {
		d, err := time.ParseDuration(s)
		if err != nil || d < 0 {
			return fmt.Errorf("pippa: seat config: timeout %q is not a duration like \"90s\" or \"2m\"", s)
		}
		c.Timeout = d
		return nil
	}
	var n int64
	if err := json.Unmarshal(j.Timeout, &n); err != nil || n < 0 {
		return fmt.Errorf("pippa: seat config: timeout %s is not a duration like \"90s\" or \"2m\"", j.Timeout)
	}
	c.Timeout = time.Duration(n)
	return nil
}

// Check reports what is missing from a seat's config, in words a person can
// act on.
func (c Config) Check() error {
	if c.URL == "" {
		return errors.New("pippa: the seat has no URL; set the base URL of an OpenAI-compatible API, e.g. http://127.0.0.1:11434/v1 for Ollama")
	}
	if !strings.HasPrefix(c.URL, "http://") && !strings.HasPrefix(c.URL, "https://") {
		return fmt.Errorf("pippa: the seat URL %q must start with http:// or https://", c.URL)
	}
	if c.Model == "" {
		return fmt.Errorf("pippa: the seat at %s has no model; name one, e.g. gpt-4o-mini or llava", c.URL)
	}
	return nil
}

// Environment variables read by ConfigFromEnv.
const (
	EnvURL   = "SPARK_BRAIN_URL"
	EnvModel = "SPARK_BRAIN_MODEL"
	EnvKey   = "SPARK_BRAIN_KEY"
)

// ConfigFromEnv returns the seat set by SPARK_BRAIN_URL, SPARK_BRAIN_MODEL
// and SPARK_BRAIN_KEY, and whether SPARK_BRAIN_URL is set.
func ConfigFromEnv() (Config, bool) {
	url := strings.TrimSpace(os.Getenv(EnvURL))
	if url == "" {
		return Config{}, false
	}
	return Config{
		URL:   url,
		Model: strings.TrimSpace(os.Getenv(EnvModel)),
		Key:   strings.TrimSpace(os.Getenv(EnvKey)),
	}, true
}
