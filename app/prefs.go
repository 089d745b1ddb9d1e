package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"

	"github.com/sparkfamily/spark/internal/atomicfile"
)

// Engine choices in prefs.Engine.
const (
	EngineLocal  = "local"  // the engine embedded in the app, on 127.0.0.1
	EngineRemote = "remote" // a family engine elsewhere, by URL and token
)

// OllamaURL is the Pippa preset for Ollama running on this computer.
const OllamaURL = "http://127.0.0.1:11434/v1"

// prefs are the app's own choices, kept as JSON in DATA/settings.json
// (mode 0600, since it holds tokens and Pippa's key). The file is written
// whole to a temp file, synced and renamed, so a crash never leaves half
// of it.
type prefs struct {
	// Engine is EngineLocal or EngineRemote.
	Engine string `json:"engine"`
	// RemoteURL and RemoteToken reach the family engine.
	RemoteURL   string `json:"remote_url,omitempty"`
	RemoteToken string `json:"remote_token,omitempty"`
	// LocalToken is the embedded engine's bearer token, minted at first run.
	LocalToken string `json:"local_token,omitempty"`
	// Pippa is the brain seat the embedded engine asks for readings.
	Pippa Pippa `json:"pippa"`
	// CacheBytes is the limit of the small copies kept in the family
	// engine's replica (sync.go); 0 (and a file written before it) is
	// replica.DefaultCacheBytes.
	CacheBytes int64 `json:"replica_cache_bytes,omitempty"`
	// Offsite is where the engine on this computer keeps its off-site
	// copy (offsite.go); its Kind is "" when Dad set none up.
	Offsite savedOffsite `json:"offsite"`
	// WordsLang is the language the window reads the words in photos in
	// (a code of its shipped data, "eng"), or WordsOff; "" (and a file
	// written before the choice) is WordsDefault. A Spark that predates
	// it ignores the field.
	WordsLang string `json:"words_lang,omitempty"`
}

// The words in photos (issue 37): read in a language, or not at all.
const (
	WordsDefault = "eng" // English, the language shipped from the start
	WordsOff     = "off" // the window reads no words in photos
)

// wordsLangCode is the shape of a language code of the reader's data:
// "eng", "chi_sim". frontend/src/codes.ts has it too (TestCodesTS), for
// ocrlane.ts's isLangCode.
var wordsLangCode = regexp.MustCompile(`^[a-z]{3}(_[a-z]+)?$`)

// wordsLang is the choice p holds, WordsDefault when none was made.
func (p prefs) wordsLang() string {
	if p.WordsLang == "" {
		return WordsDefault
	}
	return p.WordsLang
}

// savedOffsite is Offsite as settings.json keeps it. The window reads
// Offsite in snake_case (key_id), but the file has said "keyId" since
// the off-site copy came, so the file keeps its own spelling: a file
// written by an older Spark reads the same, and an older Spark reads a
// file this one wrote. Offsite(p) and savedOffsite(o) convert, field
// for field (Go ignores tags in a conversion).
type savedOffsite struct {
	Kind    string `json:"kind"`
	Folder  string `json:"folder,omitempty"`
	Address string `json:"address,omitempty"`
	Bucket  string `json:"bucket,omitempty"`
	KeyID   string `json:"keyId,omitempty"`
	Secret  string `json:"secret,omitempty"`
}

// Pippa is an OpenAI-compatible chat-completions endpoint.
type Pippa struct {
	URL   string `json:"url"`
	Model string `json:"model"`
	Key   string `json:"key,omitempty"`
}

const settingsFile = "settings.json"

// loadPrefs reads DIR/settings.json; a missing file gives the defaults
// (the local engine, no Pippa yet).
func loadPrefs(dir string) (prefs, error) {
	s := prefs{Engine: EngineLocal}
	b, err := atomicfile.ReadFile(filepath.Join(dir, settingsFile))
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return s, fmt.Errorf("read settings: %w", err)
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return s, fmt.Errorf("the settings file %s is damaged (%v): move it aside and start Spark again to get the defaults", filepath.Join(dir, settingsFile), err)
	}
	if s.Engine != EngineRemote {
		s.Engine = EngineLocal
	}
	return s, nil
}

// savePrefs writes s to DIR/settings.json atomically with mode 0600.
func savePrefs(dir string, s prefs) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("encode settings: %w", err)
	}
	return atomicfile.WriteFile(filepath.Join(dir, settingsFile), append(b, '\n'), 0o600)
}
