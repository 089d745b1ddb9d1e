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

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/client"
	"github.com/sparkfamily/spark/internal/retry"
	"github.com/sparkfamily/spark/internal/version"
	"github.com/sparkfamily/spark/outbox"
)

// Settings chooses the engine and Pippa, and reports the app's status.
type Settings struct{ a *App }

// Get returns the current settings.
func (s *Settings) Get() (SettingsView, error) {
	return settingsView(s.a.state(), s.a.log)
}

// settingsView is what Settings shows of st.
func settingsView(st *state, log *slog.Logger) (SettingsView, error) {
	if st.dataDir == "" {
		return SettingsView{}, ErrNotReady
	}
	v := SettingsView{Engine: st.prefs.Engine, RemoteURL: st.prefs.RemoteURL, RemoteToken: st.prefs.RemoteToken,
		Pippa: st.prefs.Pippa, OllamaURL: OllamaURL, DataDir: st.dataDir, LogDir: filepath.Join(st.dataDir, "logs"),
		WordsLang: st.prefs.wordsLang()}
	if st.local != nil {
		v.LocalURL = st.local.URL
	}
	if v.Engine == EngineRemote {
		v.Warning = insecureWarning(v.RemoteURL)
	}
	v.Leftovers = leftoversOf(st.ob, log)
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
	c := outbox.CountLeftovers(ls)
	v.Count, v.Sent, v.Discarded, v.Interrupted = len(ls), c.Sent, c.Discarded, c.Interrupted
	for _, l := range ls {
		v.Details = append(v.Details, outbox.LeftoverDetail(l))
	}
	return v
}

// UseLocal switches to the engine on this computer, starting it.
func (s *Settings) UseLocal() (SettingsView, error) {
	st, err := s.a.switchEngine(EngineLocal, "", "")
	if err != nil {
		return SettingsView{}, err
	}
	return settingsView(st, s.a.log)
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
		return SettingsView{}, refused(CodeNoToken, "")
	}
	st, err := s.a.switchEngine(EngineRemote, u, token)
	if err != nil {
		return SettingsView{}, err
	}
	return settingsView(st, s.a.log)
}

// switchEngine makes Spark use the engine of kind (at u with token, for a
// family engine): a whole new state, published at once, then one
// EventEngine so that every screen reads the engine now chosen. On an error
// nothing changed: Spark goes on with the engine it used.
func (a *App) switchEngine(kind, u, token string) (*state, error) {
	st, err := a.change(func(cur *state) (*state, error) {
		if cur.ob == nil {
			return nil, ErrNotReady
		}
		p := cur.prefs
		p.Engine = kind
		if kind == EngineRemote {
			p.RemoteURL, p.RemoteToken = u, token
		}
		next, err := a.connect(context.Background(), cur, p, true)
		if err != nil {
			return nil, err
		}
		if err := savePrefs(next.dataDir, next.prefs); err != nil {
			// Leave nothing opened for a state never published.
			if next.local != nil && next.local != cur.local {
				a.stopLocal(next)
			}
			if next.rep != nil && next.rep != cur.rep {
				if cerr := next.rep.Close(); cerr != nil {
					a.log.Error("close the replica", "err", cerr)
				}
			}
			return nil, err
		}
		return next, nil
	})
	if err != nil {
		return st, err
	}
	st.ob.Kick()
	a.emit(EventEngine, EngineSwitched{Engine: st.prefs.Engine, URL: st.cl.BaseURL()})
	return st, nil
}

// How a connection test went (TestResult.Code), besides the UIError code
// of why the address or the token can't be used.
const (
	TestConnected = "connected" // the engine answers and accepts the token
	TestNoAnswer  = "no_answer" // no engine answers at the address
)

// Test checks that an engine answers at rawURL and accepts token, without
// switching to it.
func (s *Settings) Test(rawURL, token string) (TestResult, error) {
	u, err := checkEngineURL(rawURL)
	if err != nil {
		ue := toUIError(err)
		return TestResult{Code: ue.Code, Address: ue.Name, Detail: ue.Detail}, nil
	}
	warning := insecureWarning(u)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	cl := client.New(u, strings.TrimSpace(token), s.a.hc)
	h, err := cl.Health(ctx)
	if err != nil {
		return TestResult{Code: TestNoAnswer, Address: u, Detail: err.Error(), Warning: warning}, nil
	}
	// Health needs no token; CheckToken tests it.
	if err := cl.CheckToken(ctx, h.Seq); err != nil {
		ue := toUIError(err)
		return TestResult{Version: h.Version, Code: ue.Code, Address: u, Detail: ue.Detail, Warning: warning}, nil
	}
	return TestResult{OK: true, Version: h.Version, Code: TestConnected, Address: u, Warning: warning}, nil
}

// Why an engine address needs a word before the token goes there
// (AddressWarning, TestResult.Warning, SettingsView.Warning), worded by
// frontend/src/words.ts's warningWords.
const (
	// WarnPlainHTTP: a plain http:// address off this computer lets
	// anyone on the network between read the token and the moments.
	WarnPlainHTTP = "plain_http"
)

// AddressWarning returns, for an engine address Dad typed, why the window
// must warn him before his token is sent there, as a Warn code: a plain
// http:// address off this computer lets anyone on the network between
// read the token and the moments. "" when the address is safe (https://,
// or this computer).
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
	return WarnPlainHTTP
}

func checkEngineURL(raw string) (string, error) {
	raw = strings.TrimRight(strings.TrimSpace(raw), "/")
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", refused(CodeNotEngineAddress, raw)
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
			return SettingsView{}, refused(CodeNotPippaAddress, p.URL)
		}
		if p.Model == "" {
			return SettingsView{}, refused(CodeNoPippaModel, "")
		}
	}
	var seatErr error
	st, err := s.a.change(func(cur *state) (*state, error) {
		if cur.dataDir == "" {
			return nil, ErrNotReady
		}
		next := *cur
		next.prefs.Pippa = p
		if err := savePrefs(next.dataDir, next.prefs); err != nil {
			return nil, err
		}
		if next.local != nil {
			// Saved: the engine takes it at its next start if not now.
			seatErr = next.local.SetPippa(context.Background(), p)
		}
		return &next, nil
	})
	if err == nil {
		err = seatErr
	}
	if err != nil {
		return SettingsView{}, err
	}
	return settingsView(st, s.a.log)
}

// SetWordsLang chooses the language the window reads the words in photos
// in (a code of its shipped data, "eng"), or WordsOff, and saves it with
// the settings. Photos already read keep their words.
func (s *Settings) SetWordsLang(lang string) (SettingsView, error) {
	choice := strings.TrimSpace(lang)
	if choice != WordsOff && !wordsLangCode.MatchString(choice) {
		return SettingsView{}, refused(CodeBadWordsLang, lang)
	}
	st, err := s.a.change(func(cur *state) (*state, error) {
		if cur.dataDir == "" {
			return nil, ErrNotReady
		}
		next := *cur
		next.prefs.WordsLang = choice
		if err := savePrefs(next.dataDir, next.prefs); err != nil {
			return nil, err
		}
		return &next, nil
	})
	if err != nil {
		return SettingsView{}, err
	}
	return settingsView(st, s.a.log)
}

// OpenDataFolder shows the data folder in the file manager.
func (s *Settings) OpenDataFolder() error { return s.reveal("") }

// OpenLogFolder shows the log folder in the file manager.
func (s *Settings) OpenLogFolder() error { return s.reveal("logs") }

func (s *Settings) reveal(sub string) error {
	st := s.a.state()
	dir, sh := st.dataDir, st.shell
	if dir == "" || sh == nil {
		return ErrNotReady
	}
	sh.Reveal(filepath.Join(dir, sub))
	return nil
}

// pippaOf is Status.Pippa of an engine's health: "" from an engine older
// than the word.
func pippaOf(h *api.Health) string {
	switch {
	case h.Pippa == nil:
		return ""
	case h.Pippa.Seated:
		return PippaSeated
	}
	return PippaNoSeat
}

// Status reports what the status bar shows: whether Spark started, whether
// the engine answers, and how many captures wait or are parked.
func (s *Settings) Status() (Status, error) {
	a := s.a
	cur := a.state()
	st := Status{Problem: cur.problem, Engine: cur.prefs.Engine, Version: version.Version}
	cl, ob := cur.cl, cur.ob
	if st.Problem != nil || cl == nil || ob == nil {
		st.Starting = st.Problem == nil
		return st, nil
	}
	st.Ready = true
	st.EngineURL = cl.BaseURL()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	// Not reachable, or refused: the window says so (words.ts engineBanner).
	if h, err := cl.Health(ctx); err == nil {
		st.Backup = h.Backup
		st.BackupFailingSince = a.failing.seen(st.EngineURL, h.Backup)
		st.Pippa = pippaOf(h)
		// The engine answers: what waits in the outbox because it did
		// not goes now, not at the end of its back-off.
		cur.engineAnswered()
		err := cl.CheckToken(ctx, h.Seq)
		e, ok := api.AsError(err)
		st.Refused = err != nil && ok && retry.Refused(e.Status)
		st.Reachable = !st.Refused
	}
	seen := CodeOffline
	if st.Refused {
		seen = CodeUnauthorized
	}
	a.engineSeen(cur, st.Reachable, seen)
	counts, err := outboxCounts(ctx, ob)
	if err != nil {
		return st, fmt.Errorf("count the outbox: %w", err)
	}
	st.WaitingItems, st.ParkedItems = counts.waiting, counts.parked
	st.Waiting, st.Parked = counts.waiting.Total(), counts.parked.Total()
	return st, nil
}
