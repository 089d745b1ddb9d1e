package app

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPrefsFileKeepsItsSpelling opens a settings.json as an older Spark
// wrote it (the off-site key id as "keyId"): it reads whole, saving it
// again keeps "keyId" (an older Spark reads it back), and the window
// gets the same choice in snake_case (key_id).
func TestPrefsFileKeepsItsSpelling(t *testing.T) {
	dir := t.TempDir()
	old := `{
  "engine": "local",
  "local_token": "tok",
  "pippa": {"url": "http://127.0.0.1:11434/v1", "model": "llava"},
  "offsite": {"kind": "provider", "address": "https://s3.example.org", "bucket": "family/spark", "keyId": "AKID", "secret": "s3cret"}
}
`
	if err := os.WriteFile(filepath.Join(dir, settingsFile), []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := loadPrefs(dir)
	if err != nil {
		t.Fatalf("loadPrefs: %v", err)
	}
	want := Offsite{Kind: OffsiteProvider, Address: "https://s3.example.org", Bucket: "family/spark", KeyID: "AKID", Secret: "s3cret"}
	if got := Offsite(p.Offsite); got != want {
		t.Fatalf("offsite read = %+v, want %+v", got, want)
	}
	if err := savePrefs(dir, p); err != nil {
		t.Fatalf("savePrefs: %v", err)
	}
	b, err := os.ReadFile(filepath.Join(dir, settingsFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"keyId": "AKID"`) || strings.Contains(string(b), "key_id") {
		t.Errorf("settings.json saved again changed its spelling:\n%s", b)
	}
	w, err := json.Marshal(OffsiteView{Choice: Offsite(p.Offsite)})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(w), `"key_id":"AKID"`) {
		t.Errorf("the window's offsite view = %s, want key_id", w)
	}
}

// TestSettings_WordsInPhotos: the language the window reads the words in
// photos in (issue 37), or off, is kept with the app's settings. A fresh
// Spark, and a settings.json written before the choice came (no
// "words_lang"), read English; a choice is saved in settings.json and
// read again after a restart; what is not a language code is refused.
func TestSettings_WordsInPhotos(t *testing.T) {
	dir := t.TempDir()
	// settings.json as Spark wrote it before this choice.
	old := `{
  "engine": "local",
  "local_token": "tok",
  "pippa": {"url": "http://127.0.0.1:11434/v1", "model": "llava"},
  "offsite": {"kind": ""}
}
`
	if err := os.WriteFile(filepath.Join(dir, settingsFile), []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := loadPrefs(dir)
	if err != nil {
		t.Fatalf("loadPrefs of the older file: %v", err)
	}
	if p.WordsLang != "" || p.Pippa.Model != "llava" || p.LocalToken != "tok" {
		t.Fatalf("the older file read = %+v; want no words choice, the rest as written", p)
	}

	a, _ := startApp(t, dir, nil)
	if s, err := a.Settings.Get(); err != nil || s.WordsLang != WordsDefault {
		t.Fatalf("Get with no choice made = %q, %v; want %q", s.WordsLang, err, WordsDefault)
	}
	for _, choice := range []string{WordsOff, "eng", "fra"} {
		s, err := a.Settings.SetWordsLang(choice)
		if err != nil || s.WordsLang != choice {
			t.Fatalf("SetWordsLang(%q) = %q, %v", choice, s.WordsLang, err)
		}
		if s, err := a.Settings.Get(); err != nil || s.WordsLang != choice {
			t.Fatalf("Get after SetWordsLang(%q) = %q, %v", choice, s.WordsLang, err)
		}
	}
	if _, err := a.Settings.SetWordsLang(" off "); err != nil {
		t.Fatalf("SetWordsLang(\" off \"): %v", err)
	}
	for _, bad := range []string{"", "English", "../x", "en", "eng-GB", "chi_SIM"} {
		_, err := a.Settings.SetWordsLang(bad)
		if got := toUIError(err); got == nil || got.Code != CodeBadWordsLang || got.Name != bad {
			t.Errorf("SetWordsLang(%q) = %+v; want %s naming it", bad, got, CodeBadWordsLang)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, settingsFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"words_lang": "off"`) || !strings.Contains(string(b), `"model": "llava"`) {
		t.Errorf("settings.json after the choice:\n%s", b)
	}
	a.Shutdown()

	// Read again by the next start.
	a2, _ := startApp(t, dir, nil)
	if s, err := a2.Settings.Get(); err != nil || s.WordsLang != WordsOff {
		t.Fatalf("Get after a restart = %q, %v; want %q", s.WordsLang, err, WordsOff)
	}
}
