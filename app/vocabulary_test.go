package app

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"
	"github.com/sparkfamily/spark/app/view"
	"github.com/sparkfamily/spark/engine/enginetest"
	"github.com/sparkfamily/spark/outbox"
)

// The window's words live in frontend/src/words.ts (issue 20, one
// vocabulary): the bindings send codes and data, never a sentence. These
// tests read the bindings' answers as the window does, as JSON.

// asJSON is v as the window receives it.
func asJSON(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// sentenceKeys are the fields that carried Go's sentences before issue 20.
var sentenceKeys = []string{"waiting", "what", "problem", "message"}

// noSentences fails when v (a binding's answer, as JSON) has a text field
// that carried a sentence, or a string with a space in it other than what Dad
// typed (typed).
func noSentences(t *testing.T, what string, v any, typed ...string) {
	t.Helper()
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if _, text := e.(string); text && slices.Contains(sentenceKeys, k) {
					t.Errorf("%s: %s.%s = %v: a field for a sentence", what, path, k, e)
				}
				walk(path+"."+k, e)
			}
		case []any:
			for _, e := range x {
				walk(path+"[]", e)
			}
		case string:
			if strings.Contains(x, " ") && !slices.Contains(typed, x) {
				t.Errorf("%s: %s = %q: a sentence, not a code or data", what, path, x)
			}
		}
	}
	walk("", v)
}

// field is the string at key of a JSON object ("" when there is none).
func field(v any, key string) string {
	m, _ := v.(map[string]any)
	s, _ := m[key].(string)
	return s
}

// TestBindings_SendCodesNotSentences: with the family engine away, every
// write binding answers with what waits as a code (what it waits for:
// the family engine), and the Outbox lists each write by its kind and its
// data (the text Dad typed, the date as RFC 3339), never in words.
func TestBindings_SendCodesNotSentences(t *testing.T) {
	old := writeWait
	writeWait = 300 * time.Millisecond
	t.Cleanup(func() { writeWait = old })
	remote := enginetest.Start(t)
	link := newLinkProxy(t, remote.URL)
	a, _ := startApp(t, t.TempDir(), nil)
	if _, err := a.Settings.UseRemote(link.srv.URL, remote.Token); err != nil {
		t.Fatal(err)
	}
	link.set(true, false)
	// The window knows the engine is away as it does in life, from its
	// status check (every 4 s): without it, what waits behind the note
	// said "sending" or "family" by whether the first sync had ended
	// before the link was cut (it failed 1 CI run here).
	waitFor(t, "the window to see the family engine away", func() bool {
		a.Settings.Status()
		s, _ := a.Sync.Status()
		return s.State == SyncOffline
	})

	const noteText, caption, phrase = "call the pharmacy", "call about the prescription", "red door"
	typed := []string{noteText, caption, phrase, "keep:" + phrase} // a phrase's id is its text
	note, gone := ulid.Make().String(), ulid.Make().String()
	answers := map[string]any{}
	var err error
	if answers["AddNote"], err = a.Moments.AddNote(note, noteText); err != nil {
		t.Fatal(err)
	}
	if answers["SetCaption"], err = a.Moments.SetCaption(note, caption, captionShown(a, note)); err != nil {
		t.Fatal(err)
	}
	if answers["SetTakenAt"], err = a.Moments.SetTakenAt(note, "2024-05-01T09:30:00Z"); err != nil {
		t.Fatal(err)
	}
	if answers["Keep"], err = a.Phrases.Keep(phrase, note); err != nil {
		t.Fatal(err)
	}
	if answers["AskCareful"], err = a.Moments.AskCareful(note, ulid.Make().String()); err != nil {
		t.Fatal(err)
	}
	if answers["ReadAgain"], err = a.Moments.ReadAgain(note, ulid.Make().String()); err != nil {
		t.Fatal(err)
	}
	if answers["Recall"], err = a.Phrases.Recall(ulid.Make().String()); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Phrases.Remove("keep:" + phrase); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Moments.Delete(gone); err != nil {
		t.Fatal(err)
	}
	if answers["Get"], err = a.Moments.Get(note); err != nil {
		t.Fatal(err)
	}
	if answers["Page"], err = a.Moments.Page("", 50); err != nil {
		t.Fatal(err)
	}
	for name, v := range answers {
		j := asJSON(t, v)
		noSentences(t, name, j, typed...)
		key := "waits_for"
		switch name {
		case "ReadAgain", "Page":
			continue // a reading waiting; a page of moments
		}
		if got := field(j, key); got != WaitsFamily {
			t.Errorf("%s: %s = %q; want %q, what it waits for", name, key, got, WaitsFamily)
		}
	}
	page := asJSON(t, answers["Page"]).(map[string]any)["moments"].([]any)
	if len(page) != 1 || field(page[0], "waits_for") != WaitsFamily {
		t.Errorf("Page = %v; want the note, waiting for the family engine", page)
	}

	st, err := a.Outbox.Status()
	if err != nil {
		t.Fatal(err)
	}
	j := asJSON(t, st)
	noSentences(t, "Outbox.Status", j, typed...)
	if got := field(j, "engine"); got != EngineRemote {
		t.Errorf("Outbox.Status engine = %q; want %q", got, EngineRemote)
	}
	want := map[string][2]string{ // kind -> text, taken_at
		string(outbox.WriteNote):    {noteText, ""},
		string(outbox.WriteCaption): {caption, ""},
		string(outbox.WriteTakenAt): {"", "2024-05-01T09:30:00Z"},
		string(outbox.WriteKeep):    {phrase, ""},
		string(outbox.WriteUnkeep):  {phrase, ""},
		string(outbox.WriteCareful): {"", ""},
		string(outbox.WriteAgain):   {"", ""},
		string(outbox.WriteRecall):  {"", ""},
		string(outbox.WriteDelete):  {"", ""},
	}
	writes := j.(map[string]any)["writes"].([]any)
	if len(writes) != len(want) {
		t.Errorf("Outbox.Status writes = %v; want one of each kind", writes)
	}
	for _, w := range writes {
		kind := field(w, "kind")
		data, ok := want[kind]
		if !ok {
			t.Errorf("a write of kind %q", kind)
			continue
		}
		if got := [2]string{field(w, "text"), field(w, "taken_at")}; got != data {
			t.Errorf("%s write: text, taken_at = %q; want %q", kind, got, data)
		}
		if got := field(w, "waits_for"); got != WaitsFamily || field(w, "state") != view.WriteStateWaiting {
			t.Errorf("%s write: state %q, waits_for %q; want waiting for %q", kind, field(w, "state"), got, WaitsFamily)
		}
	}
}

// TestBindings_ParkedWriteSendsItsCode: a write the engine refused lists
// in the Outbox with the engine's code, for the window to word, and the
// engine's own text only as its detail (behind "Details").
func TestBindings_ParkedWriteSendsItsCode(t *testing.T) {
	a, _ := startApp(t, t.TempDir(), nil)
	const caption = "A moment deleted elsewhere"
	if _, err := a.Moments.SetCaption(ulid.Make().String(), caption, ""); err == nil {
		t.Fatal("SetCaption of a moment the engine does not have: no error")
	}
	st, err := a.Outbox.Status()
	if err != nil {
		t.Fatal(err)
	}
	j := asJSON(t, st)
	if got := field(j, "engine"); got != EngineLocal {
		t.Errorf("Outbox.Status engine = %q; want %q", got, EngineLocal)
	}
	writes := j.(map[string]any)["writes"].([]any)
	if len(writes) != 1 {
		t.Fatalf("Outbox.Status writes = %v; want the caption", writes)
	}
	w := writes[0].(map[string]any)
	if !regexp.MustCompile(`^[a-z_]+$`).MatchString(field(w, "code")) || field(w, "detail") == "" || field(w, "state") != view.WriteStateParked ||
		field(w, "text") != caption {
		t.Errorf("parked write = %v; want its caption, the engine's code, and its text as the detail", w)
	}
	delete(w, "detail") // the engine's text, for Details
	noSentences(t, "Outbox.Status", j, caption)
}
