package app

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"github.com/sparkfamily/spark/api"
	"github.com/sparkfamily/spark/client"
	"github.com/sparkfamily/spark/outbox"
	"github.com/sparkfamily/spark/retry"
	"github.com/sparkfamily/spark/version"
)

// Settings chooses the engine and Pippa, and reports the app's status.
type Settings struct{ a *App }

// Get returns the current settings.
func (s *Settings) Get() (SettingsView, error) {
	a := s.a
	a.mu.Lock()
	if a.dataDir == "" {
		a.mu.Unlock()
		return SettingsView{}, ErrNotReady
	}
	v := SettingsView{Engine: a.prefs.Engine, RemoteURL: a.prefs.RemoteURL, RemoteToken: a.prefs.RemoteToken,
		Pippa: a.prefs.Pippa, OllamaURL: OllamaURL, DataDir: a.dataDir, LogDir: filepath.Join(a.dataDir, "logs")}
	if a.local != nil {
		v.LocalURL = a.local.URL
	}
	if v.Engine == EngineRemote {
		v.Warning = insecureWarning(v.RemoteURL)
	}
	ob, log := a.ob, a.log
	a.mu.Unlock()
	v.Leftovers = leftoversOf(ob, log)
	return v, nil
}

// leftoversOf is what Settings' details say about ob's files not removed
// yet. A failure to list them is only logged: Settings still opens.
func leftoversOf(ob *outbox.Outbox, log *slog.Logger) Leftovers {
	v := Leftovers{Details: []string{}}
	if ob == nil {
		return v
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	ls, err := ob.Leftovers(ctx)
	if err != nil {
		log.Warn("list the outbox's files not removed yet", "err", err)
		return v
	}
	v.Count, v.Message = len(ls), outbox.LeftoversSummary(ls)
	for _, l := range ls {
		v.Details = append(v.Details, outbox.LeftoverDetail(l))
	}
	return v
}

// UseLocal switches to the engine on this computer, starting it.
func (s *Settings) UseLocal() (SettingsView, error) {
	if err := s.a.switchEngine(EngineLocal, "", ""); err != nil {
		return SettingsView{}, err
	}
	return s.Get()
}

// UseRemote switches to a family engine; the local engine stops and the
// outbox sends to the family engine from now on.
func (s *Settings) UseRemote(rawURL, token string) (SettingsView, error) {
	u, err := checkEngineURL(rawURL)
	if err != nil {
		return SettingsView{}, err
	}
	token = strings.TrimSpace(token)
	if token == "" {
		return SettingsView{}, badInput("Paste the token the family engine gave you (spark-engine token add).")
	}
	if err := s.a.switchEngine(EngineRemote, u, token); err != nil {
		return SettingsView{}, err
	}
	return s.Get()
}

func (a *App) switchEngine(kind, u, token string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.ob == nil {
		return ErrNotReady
	}
	old := a.prefs
	a.prefs.Engine = kind
	if kind == EngineRemote {
		a.prefs.RemoteURL, a.prefs.RemoteToken = u, token
	}
	if err := a.connect(context.Background()); err != nil {
		a.prefs = old
		if cerr := a.connect(context.Background()); cerr != nil {
			a.log.Error("return to the previous engine", "err", cerr)
		}
		return err
	}
	if err := savePrefs(a.dataDir, a.prefs); err != nil {
		return err
	}
	a.ob.Kick()
	return nil
}

// Test checks that an engine answers at rawURL and accepts token, without
// switching to it.
func (s *Settings) Test(rawURL, token string) (TestResult, error) {
	u, err := checkEngineURL(rawURL)
	if err != nil {
		return TestResult{Message: err.Error()}, nil
	}
	warning := insecureWarning(u)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	cl := client.New(u, strings.TrimSpace(token), s.a.hc)
	h, err := cl.Health(ctx)
	if err != nil {
		return TestResult{Message: "No engine answers at " + u + ". Check the address and that the family engine is running.", Warning: warning}, nil
	}
	// Health needs no token; CheckToken tests it.
	if err := cl.CheckToken(ctx, h.Seq); err != nil {
		return TestResult{Version: h.Version, Message: toUIError(err).Message, Warning: warning}, nil
	}
	return TestResult{OK: true, Version: h.Version, Message: "Connected: the engine answers and accepts the token (version " + h.Version + ").", Warning: warning}, nil
}

// AddressWarning returns, for an engine address Dad typed, the sentence to
// show him before his token is sent there: a plain http:// address off this
// computer lets anyone on the network between read the token and the
// moments. "" when the address is safe (https://, or this computer).
func (s *Settings) AddressWarning(rawURL string) string { return insecureWarning(rawURL) }

// insecureWarning is AddressWarning's rule.
func insecureWarning(rawURL string) string {
	u, err := url.Parse(strings.TrimSpace(rawURL))
	if err != nil || !strings.EqualFold(u.Scheme, "http") || u.Host == "" {
		return ""
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return ""
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return ""
	}
	return "This address starts with http://, so the token, and your moments, " +
		"would cross the network unprotected: someone else on the same network could copy them. " +
		"Ask whoever runs the family engine for an address that starts with https://."
}

func checkEngineURL(raw string) (string, error) {
	raw = strings.TrimRight(strings.TrimSpace(raw), "/")
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", badInput("%q is not an engine address. It looks like http://192.168.1.20:8787 or https://spark.example.org.", raw)
	}
	return raw, nil
}

// SetPippa sets the brain seat of the engine on this computer. An empty URL
// clears the saved choice (the engine keeps its current seats).
func (s *Settings) SetPippa(p Pippa) (SettingsView, error) {
	p.URL = strings.TrimRight(strings.TrimSpace(p.URL), "/")
	p.Model = strings.TrimSpace(p.Model)
	if p.URL != "" {
		if _, err := checkEngineURL(p.URL); err != nil {
			return SettingsView{}, badInput("%q is not a Pippa address. For Ollama on this computer it is %s.", p.URL, OllamaURL)
		}
		if p.Model == "" {
			return SettingsView{}, badInput("Name the model Pippa should use (for Ollama, for example llava).")
		}
	}
	a := s.a
	a.mu.Lock()
	if a.dataDir == "" {
		a.mu.Unlock()
		return SettingsView{}, ErrNotReady
	}
	a.prefs.Pippa = p
	err := savePrefs(a.dataDir, a.prefs)
	if err == nil && a.local != nil {
		err = a.local.SetPippa(context.Background(), p)
	}
	a.mu.Unlock()
	if err != nil {
		return SettingsView{}, err
	}
	return s.Get()
}

// OpenDataFolder shows the data folder in the file manager.
func (s *Settings) OpenDataFolder() error { return s.reveal("") }

// OpenLogFolder shows the log folder in the file manager.
func (s *Settings) OpenLogFolder() error { return s.reveal("logs") }

func (s *Settings) reveal(sub string) error {
	s.a.mu.Lock()
	dir, sh := s.a.dataDir, s.a.shell
	s.a.mu.Unlock()
	if dir == "" || sh == nil {
		return ErrNotReady
	}
	sh.Reveal(filepath.Join(dir, sub))
	return nil
}

// Status reports what the status bar shows: whether Spark started, whether
// the engine answers, and how many captures wait or are parked.
func (s *Settings) Status() (Status, error) {
	a := s.a
	a.mu.Lock()
	st := Status{Problem: a.problem, Engine: a.prefs.Engine, Version: version.Version}
	cl, ob := a.cl, a.ob
	a.mu.Unlock()
	if st.Problem != "" || cl == nil || ob == nil {
		if st.Problem == "" {
			st.Starting = true
			st.Problem = "Spark is starting..."
		}
		return st, nil
	}
	st.Ready = true
	st.EngineURL = cl.BaseURL()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if h, err := cl.Health(ctx); err != nil {
		st.Reason = "The engine at " + cl.BaseURL() + " can't be reached."
	} else if err := cl.CheckToken(ctx, h.Seq); err != nil {
		if e, ok := api.AsError(err); ok && retry.Refused(e.Status) {
			st.Refused = true
			st.Reason = "The engine refused Spark's token. Check it in Settings."
		} else {
			st.Reachable = true
		}
	} else {
		st.Reachable = true
	}
	a.engineSeen(st.Reachable, st.Reason)
	counts, err := a.counts(ctx)
	if err != nil {
		return st, fmt.Errorf("count the outbox: %w", err)
	}
	st.WaitingItems, st.ParkedItems = counts.waiting, counts.parked
	st.Waiting, st.Parked = counts.waiting.Total(), counts.parked.Total()
	return st, nil
}
