package app

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/outbox"
)

// codesTS is frontend/src/codes.ts: the codes Go sends the window, as
// TypeScript constants.
var codesTS = filepath.Join("..", "frontend", "src", "codes.ts")

// TestCodesTS checks that frontend/src/codes.ts holds exactly the codes the
// Go side sends the window, each group from its Go constants; with
// SPARK_WRITE_CODES=1 it writes the file from them instead.
func TestCodesTS(t *testing.T) {
	has := func(prefix string) func(string, string) bool {
		return func(name, _ string) bool { return strings.HasPrefix(name, prefix) }
	}
	groups := []struct {
		name, doc string
		codes     []string
	}{
		{"readFail", "Why a reading failed (a reading's error_code): engine/api.ReadFailCodes.", api.ReadFailCodes},
		{"readingStatus", "A reading's status: engine/api's Turn constants, and app/view's ReadingWaiting (asked for on this computer, not sent yet).",
			append(goConstants(t, "../engine/api/types.go", has("Turn")), goConstants(t, "view/views.go", has("ReadingWaiting"))...)},
		{"engineError", "The engine's error codes (a UIError's code for a call the engine refused): engine/api's Code constants.",
			goConstants(t, "../engine/api/errors.go", has("Code"))},
		{"appError", "The app's own error codes (a UIError's code): app/errors.go's Code constants.", goConstants(t, "errors.go", has("Code"))},
		{"syncStop", "Why the sync stopped (SyncStatus.problem in state \"problem\"): app/sync.go's SyncStop constants.",
			goConstants(t, "sync.go", has("SyncStop"))},
		{"connectionTest", "How a connection test went (TestResult.code), besides an appError or engineError code: app/settingsapi.go's Test constants.",
			goConstants(t, "settingsapi.go", has("Test"))},
		{"moveStop", "Why bringing moments along stopped, or could not start or count (MoveView.stop): app/move.go's MoveStop constants.",
			goConstants(t, "move.go", has("MoveStop"))},
		{"waitsFor", "What a change not sent yet waits for (waits_for of a moment, a phrase, a recall, a careful reading and a write): app/writes.go's Waits constants.",
			goConstants(t, "writes.go", has("Waits"))},
		{"writeKind", "The kinds of Dad's writes other than photos (Write.kind, WriteEvent.kind): outbox.WriteKinds, the outbox's table of kinds.",
			kindCodes()},
		{"addressWarning", "Why an engine address needs a word before the token goes there (TestResult.warning, SettingsView.warning, Settings.AddressWarning): app/settingsapi.go's Warn constants.",
			goConstants(t, "settingsapi.go", has("Warn"))},
		{"offsiteTest", "How a test of an off-site copy's place went (OffsiteTestResult.code, and the code of a SetOffsite refused), besides a backupProblem code: app/offsite.go's OffsiteTest constants.",
			goConstants(t, "offsite.go", has("OffsiteTest"))},
		{"offsiteKind", "The kinds of off-site copy (Offsite.kind): app/offsite.go's Offsite constants but the OffsiteTest ones.",
			goConstants(t, "offsite.go", func(name, _ string) bool {
				return strings.HasPrefix(name, "Offsite") && !strings.HasPrefix(name, "OffsiteTest")
			})},
		{"backupState", "How an engine's off-site copy stands (BackupHealth.state): engine/api's BackupState constants.",
			goConstants(t, "../engine/api/backup.go", func(name, _ string) bool { return slices.Contains(backupStates, name) })},
		{"backupProblem", "Why an engine's off-site copy is failing (BackupHealth.problem), and why a place failed its test: engine/api's BackupProblem constants.",
			goConstants(t, "../engine/api/backup.go", func(name, _ string) bool {
				return strings.HasPrefix(name, "Backup") && !slices.Contains(backupStates, name)
			})},
		{"pippaState", "Whether the engine in use has a Pippa (Status.pippa; \"\" when not known): app/bound.go's Pippa constants.",
			goConstants(t, "bound.go", has("Pippa"))},
		{"eventName", "The names of the events the app sends the window (backend.ts subscribes with them): app/eventnames.go's Event constants.",
			goConstants(t, "eventnames.go", has("Event"))},
		{"captureKind", "What a capture event says (CaptureEvent.kind): app/bound.go's CaptureKind constants.",
			goConstants(t, "bound.go", has("CaptureKind"))},
		{"outboxEvent", "What became of a photo in the outbox (OutboxEvent.kind): outbox/events.go's EventKind constants.",
			goConstants(t, "../outbox/events.go", func(_, typ string) bool { return typ == "EventKind" })},
		{"step", "A photo's steps in the outbox (OutboxEvent.step, Entry.steps): outbox/entry.go's Step constants.",
			goConstants(t, "../outbox/entry.go", has("Step"))},
		{"outboxProblem", "Why the outbox holds back or parked an entry on this computer (Entry.code, OutboxEvent.code), besides an engineError code: outbox/classify.go's Code constants.",
			goConstants(t, "../outbox/classify.go", has("Code"))},
		{"photoWait", "Why a photo waits after trouble (Entry.wait): app/outboxapi.go's Wait constants.",
			goConstants(t, "outboxapi.go", has("Wait"))},
		{"momentKind", "What a moment event says (MomentEvent.kind): app/watch.go's MomentKind constants.",
			goConstants(t, "watch.go", has("MomentKind"))},
		{"writeState", "Where one of Dad's writes stands (Write.state, WriteEvent.state): app/view's WriteState constants.",
			goConstants(t, "view/views.go", has("WriteState"))},
		{"syncState", "How the sync with the family engine stands (SyncStatus.state): app/sync.go's Sync constants but the SyncStop ones.",
			goConstants(t, "sync.go", func(name, _ string) bool {
				return strings.HasPrefix(name, "Sync") && !strings.HasPrefix(name, "SyncStop")
			})},
		{"engine", "Which engine Spark uses (Settings.engine, EngineSwitched.engine): app/prefs.go's Engine constants.",
			goConstants(t, "prefs.go", has("Engine"))},
		{"imageSize", "The sizes a picture's URL can ask for with ?size= (backend.ts' tile): app/tile.go's ImageSize constants.",
			goConstants(t, "tile.go", has("ImageSize"))},
	}
	var b bytes.Buffer
	b.WriteString("// The codes the Go side sends the window, as Go names them. Generated\n" +
		"// from the Go constants by app/codes_test.go (SPARK_WRITE_CODES=1 go test\n" +
		"// ./app -run TestCodesTS), which checks this file against them: do not\n" +
		"// edit. The words for each are made in words.ts, and only there.\n")
	for _, g := range groups {
		if len(g.codes) == 0 {
			t.Fatalf("no Go constants for %s", g.name)
		}
		codes := slices.Clone(g.codes)
		if g.name != "readFail" {
			slices.Sort(codes)
		}
		fmt.Fprintf(&b, "\n/** %s */\nexport const %s = {\n", g.doc, g.name)
		for _, c := range codes {
			fmt.Fprintf(&b, "  %s: '%s',\n", camel(c), c)
		}
		typ := strings.ToUpper(g.name[:1]) + g.name[1:] + "Code"
		fmt.Fprintf(&b, "} as const;\nexport type %s = (typeof %s)[keyof typeof %s];\n", typ, g.name, g.name)
	}
	// The shape of a language code, as a RegExp literal: the two
	// syntaxes agree on this pattern, and a "/" would end the literal.
	lang := wordsLangCode.String()
	if strings.Contains(lang, "/") {
		t.Fatalf("wordsLangCode %q has a / that would end a TypeScript RegExp literal", lang)
	}
	fmt.Fprintf(&b, "\n/** The shape of a language code of the reader's data (\"eng\", \"chi_sim\"; Settings.words_lang): app/prefs.go's wordsLangCode. */\nexport const wordsLangCode = /%s/;\n", lang)
	if os.Getenv("SPARK_WRITE_CODES") != "" {
		if err := os.WriteFile(codesTS, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(codesTS)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, b.Bytes()) {
		t.Errorf("%s is not what the Go constants make; write it again with SPARK_WRITE_CODES=1 go test ./app -run TestCodesTS. Want:\n%s", codesTS, b.Bytes())
	}
}

// backupStates are the names of engine/api's BackupHealth.State
// constants; its other Backup constants are the problems.
var backupStates = []string{"BackupCurrent", "BackupCatchingUp", "BackupFailing", "BackupCheckFailed"}

// camel makes a code a TypeScript name: pippa_unreachable, pippaUnreachable.
func camel(code string) string {
	parts := strings.Split(code, "_")
	for i := 1; i < len(parts); i++ {
		if parts[i] != "" {
			parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
		}
	}
	return strings.Join(parts, "")
}

// kindCodes are the kinds of write of outbox's table, as codes.
func kindCodes() []string {
	var out []string
	for _, k := range outbox.WriteKinds() {
		out = append(out, string(k))
	}
	return out
}
