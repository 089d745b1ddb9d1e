package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/backup"
	"github.com/sparkfamily/spark/engine/client"
	"github.com/sparkfamily/spark/engine/enginetest"
)

// TestBackupCheckCmd: `backup check` drills a copy and says in plain
// words what it holds and that all is well (exit 0), or what is wrong
// and what to do (exit 1); with --data it keeps the result in the
// folder's backup-check.json for a running serve.
func TestBackupCheckCmd(t *testing.T) {
	src := enginetest.Start(t, enginetest.WithoutSeat())
	c := client.New(src.URL, src.Token, nil)
	for _, caption := range []string{"the boiler code", "the gas bill", "the school run"} {
		if _, _, err := c.CreateMoment(t.Context(), api.CreateMomentRequest{Kind: api.KindNote, Caption: caption}); err != nil {
			t.Fatal(err)
		}
	}
	copyDir := t.TempDir()
	to := backup.FileURL(copyDir)
	cmd := func(args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		code := run(context.Background(), args, &out, &errOut)
		return code, out.String(), errOut.String()
	}
	if code, out, errOut := cmd("backup", "--data", src.Dir, "--to", to); code != 0 {
		t.Fatalf("backup: exit %d: %s%s", code, out, errOut)
	}
	code, out, errOut := cmd("backup", "check", "--from", to, "--data", src.Dir)
	want := regexp.MustCompile(`^the copy in ` + regexp.QuoteMeta(to) + ` holds 3 moments and [0-9.,]+ [kMG]?B; restored and checked in [0-9.]+ m?s: all well\n$`)
	if code != 0 || !want.MatchString(out) {
		t.Fatalf("backup check: exit %d, said %q (%s); want %s", code, out, errOut, want)
	}
	t.Logf("backup check said: %s", out)
	var rec struct {
		Format int             `json:"format"`
		Check  api.BackupCheck `json:"check"`
	}
	b, err := os.ReadFile(filepath.Join(src.Dir, backup.CheckFile))
	if err != nil || json.Unmarshal(b, &rec) != nil || rec.Format != 1 || !rec.Check.OK || rec.Check.Moments != 3 {
		t.Fatalf("%s after the check: %s (%v)", backup.CheckFile, b, err)
	}

	t.Run("Damaged", func(t *testing.T) {
		segs, _ := filepath.Glob(filepath.Join(copyDir, "log", "*.seg"))
		b, err := os.ReadFile(segs[0])
		if err != nil {
			t.Fatal(err)
		}
		b[len(b)/2] ^= 1
		if err := os.WriteFile(segs[0], b, 0o600); err != nil {
			t.Fatal(err)
		}
		defer func() { b[len(b)/2] ^= 1; os.WriteFile(segs[0], b, 0o600) }()
		code, out, errOut := cmd("backup", "check", "--from", to, "--key", filepath.Join(src.Dir, backup.KeyFile))
		all := out + errOut
		if code != 1 || !strings.Contains(all, filepath.Base(segs[0])) || !strings.Contains(all, "damaged") || !strings.Contains(all, "What to do") {
			t.Fatalf("backup check of a damaged copy: exit %d: %s", code, all)
		}
		t.Logf("backup check of a damaged copy said: %s", all)
	})
	t.Run("NoKey", func(t *testing.T) {
		code, out, errOut := cmd("backup", "check", "--from", to)
		all := out + errOut
		if code != 1 || !strings.Contains(all, "encrypted") || !strings.Contains(all, "--key") || !strings.Contains(all, "What to do") {
			t.Fatalf("backup check of an encrypted copy with no key: exit %d: %s", code, all)
		}
	})
	t.Run("Gone", func(t *testing.T) {
		code, out, errOut := cmd("backup", "check", "--from", backup.FileURL(filepath.Join(t.TempDir(), "nothing")))
		if code != 1 || !strings.Contains(out+errOut, "holds no Spark copy") {
			t.Fatalf("backup check of an empty folder: exit %d: %s%s", code, out, errOut)
		}
	})
	t.Run("ErrUsage", func(t *testing.T) {
		for _, args := range [][]string{{"backup", "check"}, {"backup", "check", "--from", to, "extra"}} {
			if code, _, errOut := cmd(args...); code != 2 {
				t.Errorf("%q: exit %d, want 2: %s", args, code, errOut)
			}
		}
	})
}
