package pippa

import (
	"context"
	"log/slog"
	"net/url"
	"regexp"
	"strings"
)

// Redacted is what Redact puts in place of a secret.
const Redacted = "[redacted]"

// minSecret is the shortest secret Redact looks for elsewhere than in a
// URL: a shorter one would take ordinary words with it.
const minSecret = 4

// bearer matches the token of an Authorization header quoted in a text.
var bearer = regexp.MustCompile(`(?i)\b(bearer)(\s+)[^\s"',;)]+`)

// Redact returns text with what could give a secret away taken out, for
// every error the engine stores (a turn's error is kept in the log for
// good) and every line it logs:
//
//   - in every URL (scheme://...), the user info (user and password) and
//     the query: http://user:pw@host/v1?key=k becomes
//     http://[redacted]@host/v1?[redacted];
//   - the token of a quoted "Bearer ..." header;
//   - every occurrence of each secret given (an API key, a password, a
//     query value) of at least four characters, also percent-encoded.
//
// It is the one redaction of the engine: seats use it on their errors, the
// turn runner on what it stores, and the engine's logger on every line.
func Redact(text string, secrets ...string) string {
	// URLs first, whole: a secret redacted inside one would cut it short.
	text = redactURLs(text)
	for _, s := range secrets {
		if len(s) < minSecret {
			continue
		}
		text = strings.ReplaceAll(text, s, Redacted)
		if q := url.QueryEscape(s); q != s {
			text = strings.ReplaceAll(text, q, Redacted)
		}
		if p := url.PathEscape(s); p != s {
			text = strings.ReplaceAll(text, p, Redacted)
		}
	}
	return bearer.ReplaceAllString(text, "${1}${2}"+Redacted)
}

// redactURLs takes the user info and the query out of every URL in text.
func redactURLs(text string) string {
	var b strings.Builder
	rest := text
	for {
		i := strings.Index(rest, "://")
		if i < 0 {
			break
		}
		// The URL runs to the first character that cannot be in it (white
		// space, a quote, a bracket).
		end := i + 3
		for end < len(rest) && !isURLEnd(rest[end]) {
			end++
		}
		// Punctuation that ends a sentence is not part of the URL.
		for end > i+3 && strings.IndexByte(".,:;!?", rest[end-1]) >= 0 {
			end--
		}
		b.WriteString(rest[:i+3])
		b.WriteString(redactURLTail(rest[i+3 : end]))
		rest = rest[end:]
	}
	if b.Len() == 0 {
		return text
	}
	b.WriteString(rest)
	return b.String()
}

// redactURLTail redacts what follows "scheme://": authority, path, query.
func redactURLTail(s string) string {
	authEnd := strings.IndexAny(s, "/?#")
	if authEnd < 0 {
		authEnd = len(s)
	}
	auth, tail := s[:authEnd], s[authEnd:]
	// The host follows the last "@" of the authority.
	if at := strings.LastIndex(auth, "@"); at >= 0 {
		auth = Redacted + auth[at:]
	}
	if q := strings.IndexByte(tail, '?'); q >= 0 {
		frag := ""
		if h := strings.IndexByte(tail[q:], '#'); h >= 0 {
			frag = tail[q+h:]
		}
		tail = tail[:q+1] + Redacted + frag
	}
	return auth + tail
}

func isURLEnd(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '"', '\'', '`', '<', '>', '(', ')', '[', ']', '{', '}', '\\':
		return true
	}
	return false
}

// Secrets are the strings of c that must never be stored or logged: its
// API key, its URL's password, and its URL's query values.
func (c Config) Secrets() []string {
	var out []string
	if c.Key != "" {
		out = append(out, c.Key)
	}
	if u, err := url.Parse(c.URL); err == nil {
		if pw, ok := u.User.Password(); ok && pw != "" {
			out = append(out, pw)
		}
		for _, vs := range u.Query() {
			for _, v := range vs {
				if v != "" {
					out = append(out, v)
				}
			}
		}
	}
	return out
}

// Redact redacts text with c's secrets (see the package's Redact).
func (c Config) Redact(text string) string { return Redact(text, c.Secrets()...) }

// redactedError is an error whose message was redacted; errors.Is and
// errors.As still see the error it came from, so it is classified the same.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// redactError redacts err's message with c's secrets.
func (c Config) redactError(err error) error {
	if err == nil {
		return nil
	}
	return &redactedError{msg: c.Redact(err.Error()), err: err}
}

// RedactHandler wraps a log handler so that no line it writes shows a
// URL's user info or query, or a quoted Bearer token: the message and
// every string (or error, or other value printed as text) attribute go
// through Redact. Seats' keys are taken out where their errors are made;
// this catches what reaches the log some other way.
func RedactHandler(h slog.Handler) slog.Handler { return redactHandler{h} }

type redactHandler struct{ h slog.Handler }

func (r redactHandler) Enabled(ctx context.Context, l slog.Level) bool { return r.h.Enabled(ctx, l) }

func (r redactHandler) Handle(ctx context.Context, rec slog.Record) error {
	out := slog.NewRecord(rec.Time, rec.Level, Redact(rec.Message), rec.PC)
	rec.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(redactAttr(a))
		return true
	})
	return r.h.Handle(ctx, out)
}

func (r redactHandler) WithAttrs(as []slog.Attr) slog.Handler {
	red := make([]slog.Attr, len(as))
	for i, a := range as {
		red[i] = redactAttr(a)
	}
	return redactHandler{r.h.WithAttrs(red)}
}

func (r redactHandler) WithGroup(name string) slog.Handler { return redactHandler{r.h.WithGroup(name)} }

func redactAttr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, Redact(v.String()))
	case slog.KindGroup:
		as := v.Group()
		red := make([]slog.Attr, len(as))
		for i, g := range as {
			red[i] = redactAttr(g)
		}
		return slog.Attr{Key: a.Key, Value: slog.GroupValue(red...)}
	case slog.KindAny:
		// Errors and other values are logged as their text.
		if s := v.String(); strings.Contains(s, "://") || strings.Contains(strings.ToLower(s), "bearer") {
			return slog.String(a.Key, Redact(s))
		}
	}
	return slog.Attr{Key: a.Key, Value: v}
}
