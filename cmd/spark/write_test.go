package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/client"
	"github.com/sparkfamily/spark/engine/enginetest"
	"github.com/sparkfamily/spark/outbox"
)

// TestSpark_NoteCaptionDelete (issue 35): the headless client writes as
// the window does, through the outbox, with the ids minted when the
// command runs: 'spark note' prints the new moment's id alone on stdout,
// 'spark caption' and 'spark delete' answer once the write is safe on
// disk, with no network, and 'spark drain' sends them in order.
func TestSpark_NoteCaptionDelete(t *testing.T) {
	eng := enginetest.Start(t)
	vars := map[string]string{"SPARK_ENGINE": eng.URL, "SPARK_TOKEN": eng.Token}
	data := t.TempDir()

	// No engine is named: a write needs none.
	code, out, errOut := spark(t, nil, "--data", data, "note", "call", "the", "pharmacy")
	if code != 0 {
		t.Fatalf("note = %d\n%s\n%s", code, out, errOut)
	}
	id := strings.TrimSpace(out)
	if _, err := api.ParseULID(id); err != nil || out != id+"\n" {
		t.Fatalf("note printed %q on stdout; want the moment's id alone: %v", out, err)
	}
	if code, out, errOut := spark(t, nil, "--data", data, "caption", id, "call about the prescription"); code != 0 {
		t.Fatalf("caption = %d\n%s\n%s", code, out, errOut)
	}
	if code, out, errOut := spark(t, vars, "--data", data, "drain", "--for", "10s"); code != 0 {
		t.Fatalf("drain = %d\n%s\n%s", code, out, errOut)
	}
	cl := client.New(eng.URL, eng.Token, eng.Client())
	m, err := cl.Moment(context.Background(), id)
	if err != nil || m.Kind != api.KindNote || m.Caption != "call about the prescription" {
		t.Fatalf("the note at the engine = %+v, %v", m, err)
	}

	if code, out, errOut := spark(t, nil, "--data", data, "delete", id); code != 0 {
		t.Fatalf("delete = %d\n%s\n%s", code, out, errOut)
	}
	if code, out, errOut := spark(t, vars, "--data", data, "drain", "--for", "10s"); code != 0 {
		t.Fatalf("drain = %d\n%s\n%s", code, out, errOut)
	}
	if m, err := cl.Moment(context.Background(), id); err != nil || m.DeletedAt == nil {
		t.Errorf("the note at the engine after 'spark delete' was sent = %+v, %v; want it deleted", m, err)
	}
	if n := eng.OpCount(t, "moment.create"); n != 1 {
		t.Errorf("%d moment.create ops; want the note's one", n)
	}

	// Deleted by mistake and brought back, both offline: once sent, in
	// order, the note is live again, and Restore pressed twice is one.
	for _, cmd := range []string{"delete", "restore", "restore"} {
		if code, out, errOut := spark(t, nil, "--data", data, cmd, id); code != 0 {
			t.Fatalf("%s = %d\n%s\n%s", cmd, code, out, errOut)
		}
	}
	if code, out, errOut := spark(t, vars, "--data", data, "drain", "--for", "10s"); code != 0 {
		t.Fatalf("drain = %d\n%s\n%s", code, out, errOut)
	}
	if m, err := cl.Moment(context.Background(), id); err != nil || m.DeletedAt != nil || m.Caption != "call about the prescription" {
		t.Errorf("the note after 'spark restore' was sent = %+v, %v; want it live, its caption kept", m, err)
	}
	if n := eng.OpCount(t, "moment.restore"); n != 1 {
		t.Errorf("%d moment.restore ops; want one", n)
	}
}

// TestSpark_WriteBadInput: a write the engine would refuse for good is
// refused at once, saying why, and nothing is stored.
func TestSpark_WriteBadInput(t *testing.T) {
	data := t.TempDir()
	long := strings.Repeat("a", api.MaxCaptionBytes+1)
	for _, tc := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"note"}, 2, "write the note's text"},
		{[]string{"note", "  "}, 2, "write the note's text"},
		{[]string{"caption", "01J0000000000000000000000A"}, 2, "name the moment and write its caption"},
		{[]string{"caption", "01J000000000000000000000U!", "a caption"}, 1, "not a ULID"},
		{[]string{"caption", strings.Repeat("0", 300), "a caption"}, 1, "a ULID has 26 characters"},
		{[]string{"delete"}, 2, "name the moment to delete"},
		{[]string{"delete", "01J0000000000000000000000A", "more"}, 2, "name the moment to delete"},
		{[]string{"note", long}, 1, "caption"},
	} {
		code, out, errOut := spark(t, nil, append([]string{"--data", data}, tc.args...)...)
		if code != tc.code || !strings.Contains(errOut, tc.says) || out != "" {
			t.Errorf("spark %.60q = %d, stdout %q, stderr %q; want %d and %q", tc.args, code, out, errOut, tc.code, tc.says)
		}
	}
	o, err := outbox.Open(context.Background(), filepath.Join(data, "outbox"), outbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	if st, err := o.Status(context.Background()); err != nil || len(st.Writes) != 0 {
		t.Errorf("the outbox holds %d writes after refused commands (%v); want none", len(st.Writes), err)
	}
}

// TestSpark_MomentsDeleted: 'spark moments --deleted' lists Recently
// deleted from this computer's copy, with when each was deleted, less what
// a restore waiting in the outbox brings back; restored and synced, the
// moment is in 'spark moments' again.
func TestSpark_MomentsDeleted(t *testing.T) {
	eng := enginetest.Start(t)
	vars := map[string]string{"SPARK_ENGINE": eng.URL, "SPARK_TOKEN": eng.Token}
	data := t.TempDir()
	_, out, _ := spark(t, nil, "--data", data, "note", "read the gas meter")
	id := strings.TrimSpace(out)
	spark(t, nil, "--data", data, "delete", id)
	for _, cmd := range [][]string{{"drain", "--for", "10s"}, {"sync"}} {
		if code, out, errOut := spark(t, vars, append([]string{"--data", data}, cmd...)...); code != 0 {
			t.Fatalf("%v = %d\n%s\n%s", cmd, code, out, errOut)
		}
	}
	listed := func(args ...string) []momentLine {
		t.Helper()
		code, out, errOut := spark(t, nil, append([]string{"--data", data, "moments", "--json"}, args...)...)
		if code != 0 {
			t.Fatalf("moments %v = %d\n%s\n%s", args, code, out, errOut)
		}
		var l momentsListing
		if err := json.Unmarshal([]byte(out), &l); err != nil {
			t.Fatal(err)
		}
		return l.Moments
	}
	if ms := listed("--deleted"); len(ms) != 1 || ms[0].ID != id || ms[0].DeletedAt == nil {
		t.Fatalf("moments --deleted = %+v; want the note, with when it was deleted", ms)
	}
	if ms := listed(); len(ms) != 0 {
		t.Fatalf("moments = %+v; want none live", ms)
	}
	spark(t, nil, "--data", data, "restore", id)
	if ms := listed("--deleted"); len(ms) != 0 {
		t.Fatalf("moments --deleted with the restore waiting = %+v; want none", ms)
	}
	for _, cmd := range [][]string{{"drain", "--for", "10s"}, {"sync"}} {
		if code, out, errOut := spark(t, vars, append([]string{"--data", data}, cmd...)...); code != 0 {
			t.Fatalf("%v = %d\n%s\n%s", cmd, code, out, errOut)
		}
	}
	if ms := listed(); len(ms) != 1 || ms[0].ID != id || ms[0].DeletedAt != nil || ms[0].Caption != "read the gas meter" {
		t.Fatalf("moments after the restore = %+v; want the note, live", ms)
	}
}
