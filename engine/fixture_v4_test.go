package engine

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/pippa/pippatest"
)

// fixtureV4 is a data directory (op log, mirror of schema version 4,
// media) written by the engine of main at commit 7d1e1a6, before failed
// readings had codes: a reading of each way it failed there (see
// testdata/README.md).
var fixtureV4 = filepath.Join("testdata", "main-v4")

// Main's failed readings get, once its mirror is migrated, the codes
// their errors' words give (as the window read them then), the same codes
// a rebuild of the mirror from the log gives them; its log reads byte for
// byte as it was written; a reading that fails now logs its code.
func TestFixtureV4_ReadingFailureCodes(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(fixtureV4)); err != nil {
		t.Fatal(err)
	}
	oldLog, err := os.ReadFile(filepath.Join(fixtureV4, LogFile))
	if err != nil {
		t.Fatal(err)
	}
	p := pippatest.New(t)
	p.SetRefuse(true)
	e := openEngine(t, dir, withSeats(p.Config()))
	ctx := ctxT(t)

	// Each moment's caption says how its reading went on main.
	for moment, want := range map[string]struct{ status, code string }{
		"01KBH0000000000000000000A1": {api.TurnFinished, ""},
		"01KBH0000000000000000000A2": {api.TurnFailed, api.ReadPippaRefused},     // refused (400)
		"01KBH0000000000000000000A3": {api.TurnFailed, api.ReadPippaUnreachable}, // nothing listening
		// Main's words for an answer that is not a chat completion, or
		// has no text, said the seat "refused the request", and the
		// window read them as a refusal: so do the codes of these two.
		"01KBH0000000000000000000A4": {api.TurnFailed, api.ReadPippaRefused},
		"01KBH0000000000000000000A5": {api.TurnFailed, api.ReadPippaRefused},
		"01KBH0000000000000000000A6": {api.TurnFailed, api.ReadPhotoTooLarge},
	} {
		mo, err := e.Moment(ctx, moment)
		if err != nil {
			t.Fatal(err)
		}
		if len(mo.Turns) == 0 {
			t.Fatalf("moment %s (%q) has no turn", moment, mo.Caption)
		}
		if tn := mo.Turns[0]; tn.Status != want.status || tn.ErrorCode != want.code {
			t.Errorf("main's reading of %q: %s with error_code %q (error %q); want %s with %q", mo.Caption, tn.Status, tn.ErrorCode, tn.Error, want.status, want.code)
		}
	}
	for id, code := range map[string]string{"v4-import-empty": api.ReadPippaAnswerUnreadable, "v4-import-odd": api.ReadFailed} {
		if tn, err := e.Turn(ctx, id); err != nil || tn.ErrorCode != code {
			t.Errorf("main's imported turn %s: %+v, %v; want error_code %q", id, tn, err, code)
		}
	}

	ops, _, err := e.Ops(ctx, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range ops {
		if op.Op == api.OpTurnFinish && bytes.Contains(op.Data, []byte("error_code")) {
			t.Errorf("main's op %d now reads %s", op.Seq, op.Data)
		}
	}
	last := ops[len(ops)-1].Seq

	// A reading that fails now logs its code with it.
	tn, _, err := e.StartTurn(ctx, "01KBH0000000000000000000A1", api.StartTurnRequest{ClientRequestID: "v5-turn", Mode: api.ModePractical})
	if err != nil {
		t.Fatal(err)
	}
	if done := waitTurn(t, e, tn.ID); done.ErrorCode != api.ReadPippaRefused {
		t.Fatalf("a reading refused now: %+v; want error_code %q", done, api.ReadPippaRefused)
	}
	ops, _, err = e.Ops(ctx, last, 0)
	if err != nil {
		t.Fatal(err)
	}
	var finish struct {
		ErrorCode string `json:"error_code"`
	}
	for _, op := range ops {
		if op.Op == api.OpTurnFinish {
			if err := json.Unmarshal(op.Data, &finish); err != nil {
				t.Fatal(err)
			}
		}
	}
	if finish.ErrorCode != api.ReadPippaRefused {
		t.Errorf("the new turn.finish's error_code is %q; want %q", finish.ErrorCode, api.ReadPippaRefused)
	}

	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	logNow, err := os.ReadFile(filepath.Join(dir, LogFile))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(logNow, oldLog) {
		t.Errorf("main's log was changed: its %d bytes are not the start of the log now", len(oldLog))
	}
	live := dumpMirror(t, filepath.Join(dir, MirrorFile))
	if err := Rebuild(ctxT(t), dir, quiet); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(live, dumpMirror(t, filepath.Join(dir, MirrorFile))); diff != "" {
		t.Errorf("main's mirror, migrated, differs from the fold of its log (-migrated +rebuilt):\n%s", diff)
	}
}
