package engine

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sparkfamily/spark/engine/api"
)

// testdata/main-v5 is a data directory (op log, mirror of schema version
// 5) written by the engine of main at commit fe450c2, before tokens had
// members: moments, kept phrases and a reading of the tokens dad-laptop,
// mum and me (admin), a phrase the engine kept itself, and one kept by
// dad-laptop, removed and kept again by mum (see testdata/README.md).

// Main's data opens with its mirror migrated: each kept phrase is its
// keeper's (the member of its phrase.keep, read from the log), each moment
// its creator's, as a rebuild from the log gives them; fsck finds the
// migrated mirror equal to the fold before the engine ever opens it; the
// log reads byte for byte as it was written; new ops name their member.
func TestFixtureV5_PhraseOwners(t *testing.T) {
	dir := copyFixture(t, "main-v5")
	oldLog, err := os.ReadFile(filepath.Join(dir, LogFile))
	if err != nil {
		t.Fatal(err)
	}
	// fsck migrates a snapshot of the mirror, and reads the log for it.
	var out strings.Builder
	if ok, err := Fsck(ctxT(t), dir, &out); err != nil || !ok {
		t.Fatalf("fsck of main's data = %v, %v:\n%s", ok, err, out.String())
	}

	e := openEngine(t, dir)
	ctx := ctxT(t)
	phrases, err := e.Phrases(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, p := range phrases {
		got[p.Text] = p.Member
	}
	want := map[string]string{"call the bank": "dad-laptop", "school trip money": "mum", "bleed the radiators": "me",
		"kept by the engine itself": "", "the dentist on Friday": "mum"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("who keeps main's phrases (-want +got):\n%s", diff)
	}
	for id, member := range map[string]string{"01KBT0000000000000000000A1": "dad-laptop", "01KBT0000000000000000000B1": "mum", "01KBT0000000000000000000C1": "me"} {
		if mo, err := e.Moment(ctx, id); err != nil || mo.Member != member {
			t.Errorf("main's moment %s: %+v, %v; want the member %q", id, mo, err, member)
		}
	}

	// A token of dad-laptop's member, made before members, removes its
	// phrase; mum's may not.
	mum := WithActor(ctx, Actor{Name: "mum"})
	_, err = e.RemovePhrase(mum, "keep:call the bank")
	wantCode(t, err, api.CodeForbidden)
	if ok, err := e.RemovePhrase(WithActor(ctx, Actor{Name: "dad-laptop"}), "keep:call the bank"); err != nil || !ok {
		t.Fatalf("dad-laptop removing its phrase: %v, %v", ok, err)
	}
	// A new token of the member dad writes as dad.
	desktop := WithActor(ctx, Actor{Name: "dad-desktop", Member: "dad"})
	if _, _, err := e.KeepPhrase(desktop, api.KeepPhraseRequest{Text: "the bank is open on Monday", MomentID: "01KBT0000000000000000000A1"}); err != nil {
		t.Fatal(err)
	}
	ops, _, err := e.Ops(ctx, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if last := ops[len(ops)-1]; last.Op != api.OpPhraseKeep || last.Author != "dad-desktop" || last.Member != "dad" {
		t.Errorf("the last op: %+v; want a phrase.keep by dad-desktop for dad", last)
	}
	for _, op := range ops[:len(ops)-1] {
		if op.Member != op.Author {
			t.Errorf("main's op %d: author %q, member %q; want its author's member", op.Seq, op.Author, op.Member)
		}
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
	wantMigratedIsFold(t, dir)
}

// TestFixtureV5_MigratedIsFold: main's mirror, migrated and nothing else,
// equals a rebuild from its log, table by table.
func TestFixtureV5_MigratedIsFold(t *testing.T) {
	dir := copyFixture(t, "main-v5")
	e := openEngine(t, dir)
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	wantMigratedIsFold(t, dir)
}
