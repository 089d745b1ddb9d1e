package pippa

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"
)

func TestRedact(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		secrets  []string
		want     string
	}{
		{"Plain", "no secret here", nil, "no secret here"},
		{"URLPassword", "ask http://spark:pw1234@host:8080/v1: refused", nil, "ask http://[redacted]@host:8080/v1: refused"},
		{"URLQuery", `Post "https://h/v1?key=abc&x=1": timeout`, nil, `Post "https://h/v1?[redacted]": timeout`},
		{"URLQueryAndFragment", "see https://h/p?token=x#part.", nil, "see https://h/p?[redacted]#part."},
		{"URLUserOnly", "http://me@h/v1", nil, "http://[redacted]@h/v1"},
		{"URLAtInPath", "http://h/v1/a@b", nil, "http://h/v1/a@b"},
		{"URLPlain", "the engine at http://127.0.0.1:8787 answers", nil, "the engine at http://127.0.0.1:8787 answers"},
		{"TwoURLs", "http://a:b@x/ and https://y/?q=1", nil, "http://[redacted]@x/ and https://y/?[redacted]"},
		{"Key", "Incorrect API key provided: sk-abcdef123456.", []string{"sk-abcdef123456"}, "Incorrect API key provided: [redacted]."},
		{"KeyTwice", "sk-abcdef123456 sk-abcdef123456", []string{"sk-abcdef123456"}, "[redacted] [redacted]"},
		{"KeyEscaped", "key=sk%2Fabc%2B12", []string{"sk/abc+12"}, "key=[redacted]"},
		{"ShortSecretLeft", "a b c", []string{"a"}, "a b c"},
		{"EmptySecret", "text", []string{""}, "text"},
		{"Bearer", `sent Authorization: Bearer tok-123, refused`, nil, `sent Authorization: Bearer [redacted], refused`},
		{"BearerLower", `bearer xyz`, nil, `bearer [redacted]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Redact(tc.in, tc.secrets...); got != tc.want {
				t.Fatalf("Redact(%q)\n got %q\nwant %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestConfig_Secrets(t *testing.T) {
	c := Config{URL: "http://user:pass-word@h/v1?api-key=query-secret&v=1", Key: "sk-key-0001"}
	got := strings.Join(c.Secrets(), " ")
	for _, want := range []string{"sk-key-0001", "pass-word", "query-secret"} {
		if !strings.Contains(got, want) {
			t.Errorf("Secrets() = %q, missing %q", got, want)
		}
	}
	msg := c.Redact("seat at " + c.URL + " said: bad key sk-key-0001 for pass-word")
	for _, s := range []string{"sk-key-0001", "pass-word", "query-secret"} {
		if strings.Contains(msg, s) {
			t.Errorf("Redact left %q in %q", s, msg)
		}
	}
}

// TestRedactError: a seat's error keeps its kind (transient or not) once
// its message is redacted.
func TestRedactError(t *testing.T) {
	c := Config{Key: "sk-key-0001"}
	he := &HTTPError{Seat: "s", Status: 503, Message: "overloaded, key sk-key-0001"}
	err := c.redactError(he)
	if strings.Contains(err.Error(), "sk-key-0001") {
		t.Fatalf("the key is in %q", err)
	}
	var got *HTTPError
	if !errors.As(err, &got) || !IsTransient(err) {
		t.Fatalf("the redacted error lost its kind: %v", err)
	}
	if c.redactError(nil) != nil {
		t.Fatal("redactError(nil) is not nil")
	}
}

func TestRedactHandler(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(RedactHandler(slog.NewTextHandler(&buf, nil)))
	log = log.With("seat", "http://u:p4ss@h/v1")
	log.Info("asked https://h/v1?key=k123", "err", errors.New(`Post "http://u:p4ss@h/v1": Bearer tok-1`),
		slog.Group("g", "url", "http://h/?q=secret"), "n", 3)
	out := buf.String()
	for _, s := range []string{"p4ss", "key=k123", "tok-1", "q=secret"} {
		if strings.Contains(out, s) {
			t.Errorf("the log line holds %q: %s", s, out)
		}
	}
	if !strings.Contains(out, "n=3") || !strings.Contains(out, "h/v1") {
		t.Errorf("the log line lost what is not secret: %s", out)
	}
}
