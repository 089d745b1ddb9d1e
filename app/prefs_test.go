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
