package engine

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/oplog"
)

// TestOpen_FlippedByteInLastFoldedRecord is the third finding: one
// flipped byte in the last whole record, an op the mirror has folded (so
// it was answered), must not be cut as a torn tail. Open refuses, naming
// the file and the offset, and changes nothing; rebuild refuses too, so
// the advised repair cannot make the loss permanent.
func TestOpen_FlippedByteInLastFoldedRecord(t *testing.T) {
	dir := t.TempDir()
	e, err := tryOpen(t, dir)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		mustCreate(t, e, api.CreateMomentRequest{ClientRequestID: fmt.Sprintf("c-%d", i), Kind: api.KindNote, Caption: "answered"})
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(dir, LogFile)
	before, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	// The last record's caption ends 5 bytes before the end of the file.
	damaged := append([]byte(nil), before...)
	damaged[len(damaged)-5] ^= 0x01
	if err := os.WriteFile(logPath, damaged, 0o600); err != nil {
		t.Fatal(err)
	}

	_, err = tryOpen(t, dir)
	var ce *oplog.CorruptError
	if !errors.As(err, &ce) || ce.Tail {
		t.Fatalf("Open with a flipped byte in the last folded record = %v; want a corrupt-log error, not a torn tail", err)
	}
	if !strings.Contains(err.Error(), logPath) || !strings.Contains(err.Error(), "offset") {
		t.Errorf("Open's error does not name the file and the offset: %v", err)
	}
	if err := Rebuild(ctxT(t), dir, quiet); err == nil {
		t.Errorf("Rebuild of a log with a corrupt last record succeeded")
	}
	after, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	if string(after) != string(damaged) {
		t.Errorf("the log changed (%d bytes, was %d): an answered op was cut", len(after), len(damaged))
	}
	// Once the byte is put back, everything answered is there.
	if err := os.WriteFile(logPath, before, 0o600); err != nil {
		t.Fatal(err)
	}
	e = openEngine(t, dir)
	wantOps(t, e, map[string]int{api.OpMomentCreate: 3})
}

// TestOpen_FanOutCutShort: a crash in the middle of a recall's write (its
// create and its turn go out in one write) must leave both or neither, never
// a recall moment without its turn. The mirror is lost as well, as a power
// cut may lose its last commits.
func TestOpen_FanOutCutShort(t *testing.T) {
	dir := t.TempDir()
	e, err := tryOpen(t, dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"a cat", "the stairs"} {
		if _, _, err := e.KeepPhrase(ctxT(t), api.KeepPhraseRequest{Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	logPath := filepath.Join(dir, LogFile)
	fi, err := os.Stat(logPath)
	if err != nil {
		t.Fatal(err)
	}
	start := fi.Size()
	if _, _, _, err := e.StartRecall(ctxT(t), "recall-1"); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	whole, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	// Cut inside the moment's record, at the very end of it (the turn's
	// record not begun: under the old format, a clean end), inside the
	// turn's, and one byte short of the end.
	turnAt := start + 1 + int64(bytes.Index(whole[start+1:], []byte("\xF5SOP")))
	if turnAt <= start {
		t.Fatal("no second record in the recall's write")
	}
	cuts := []int64{start + 1, start + 20, turnAt - 1, turnAt, turnAt + 1, turnAt + 12, turnAt + 40, int64(len(whole)) - 1}
	for _, cut := range cuts {
		if err := os.WriteFile(logPath, whole[:cut], 0o600); err != nil {
			t.Fatal(err)
		}
		removeDB(filepath.Join(dir, MirrorFile))
		e, err := tryOpen(t, dir)
		if err != nil {
			t.Fatalf("cut at %d: Open: %v", cut, err)
		}
		counts := opCounts(t, e)
		e.Close()
		if counts[api.OpMomentCreate] != counts[api.OpTurnStart] {
			t.Fatalf("cut at %d of the recall's write (%d to %d): the log holds %d recall moment(s) and %d turn(s); want both or neither",
				cut, start, len(whole), counts[api.OpMomentCreate], counts[api.OpTurnStart])
		}
	}
}

// TestOpen_DataOfMain opens a data folder written by the engine before
// the log had group marks (testdata/v1-main, see its README): every op is
// there and folds as it did, fsck passes, and new fan-outs are written as
// groups after the old records.
func TestOpen_DataOfMain(t *testing.T) {
	dir := copyFixture(t, "v1-main")
	e := openEngine(t, dir)
	wantOps(t, e, map[string]int{api.OpMomentCreate: 3, api.OpMediaPut: 1, api.OpTurnStart: 4, api.OpTurnFinish: 4, api.OpPhraseKeep: 3})
	moments, _, err := e.Moments(ctxT(t), 10, "")
	if err != nil || len(moments) != 3 {
		t.Fatalf("Moments = %d, %v", len(moments), err)
	}
	var recall *api.Moment
	for i := range moments {
		if moments[i].Kind == api.KindRecall {
			recall = &moments[i]
		}
	}
	if recall == nil || len(recall.Turns) != 1 || recall.Turns[0].Status != api.TurnFinished {
		t.Fatalf("the recall moment of the old log = %+v", recall)
	}
	turns, created, err := e.StartJob(ctxT(t), moments[len(moments)-1].ID, "job-1")
	if err != nil || created || len(turns) != 2 {
		t.Fatalf("the old job asked again = %d turns, created %v, %v", len(turns), created, err)
	}
	var out bytes.Buffer
	if ok, err := Fsck(ctxT(t), dir, &out); !ok || err != nil {
		t.Fatalf("fsck of the old folder: %v\n%s", err, out.String())
	}
	if _, _, _, err := e.StartRecall(ctxT(t), "recall-2"); err != nil {
		t.Fatal(err)
	}
	e.Close()
	e = openEngine(t, dir)
	wantOps(t, e, map[string]int{api.OpMomentCreate: 4, api.OpMediaPut: 1, api.OpTurnStart: 5, api.OpTurnFinish: 4, api.OpPhraseKeep: 3})
}
