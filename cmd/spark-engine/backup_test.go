package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/backup"
	"github.com/sparkfamily/spark/engine/client"
	"github.com/sparkfamily/spark/engine/enginetest"
	"github.com/sparkfamily/spark/internal/versitygw"
)

// TestBackupRestoreCmd ships a running engine's folder with `backup`,
// restores it with `restore` into a new folder and checks the exit codes
// and what they say.
func TestBackupRestoreCmd(t *testing.T) {
	src := enginetest.Start(t, enginetest.WithoutSeat())
	c := client.New(src.URL, src.Token, nil)
	for _, caption := range []string{"the boiler code", "the gas bill"} {
		if _, _, err := c.CreateMoment(t.Context(), api.CreateMomentRequest{Kind: api.KindNote, Caption: caption}); err != nil {
			t.Fatal(err)
		}
	}
	copyDir := t.TempDir()
	to := backup.FileURL(copyDir)
	runOK := func(args ...string) string {
		t.Helper()
		var out, errOut bytes.Buffer
		if code := run(context.Background(), args, &out, &errOut); code != 0 {
			t.Fatalf("%s: exit %d: %s%s", args[0], code, out.String(), errOut.String())
		}
		return out.String()
	}
	keyFile := filepath.Join(src.Dir, backup.KeyFile)
	out := runOK("backup", "--data", src.Dir, "--to", to)
	for _, want := range []string{"this run shipped 1 segment(s)", "encrypted with a new key, kept in " + keyFile, "Keep a copy of it somewhere else", "spark-engine backup key show --data " + src.Dir} {
		if !strings.Contains(out, want) {
			t.Errorf("the first backup's output lacks %q:\n%s", want, out)
		}
	}
	if out := runOK("backup", "--data", src.Dir, "--to", to); !strings.Contains(out, "this run shipped 0 segment(s)") || strings.Contains(out, "new key") {
		t.Errorf("a second backup with nothing new said %q", out)
	}
	key, err := backup.LoadKey(src.Dir)
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), "restored")
	out = runOK("restore", "--from", to, "--data", dst, "--seq", "1", "--key", keyFile)
	for _, want := range []string{"fsck: all good", "through seq 1", "spark-engine token add NAME --data " + dst} {
		if !strings.Contains(out, want) {
			t.Errorf("restore's output lacks %q:\n%s", want, out)
		}
	}
	if k, err := backup.LoadKey(dst); err != nil || k.Recipient() != key.Recipient() {
		t.Errorf("the restored folder's key: %v, %v; want the copy's", k, err)
	}
	t.Run("KeyShow", func(t *testing.T) {
		var out bytes.Buffer
		out.WriteString(runOK("backup", "key", "show", "--data", src.Dir))
		for _, want := range []string{key.Recipient(), "This is the key to your off-site copy", "AGE-SECRET-KEY-1"} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("backup key show lacks %q:\n%s", want, out.String())
			}
		}
		// The recovery text, printed and typed back, restores the copy.
		text := filepath.Join(t.TempDir(), "recovery.txt")
		if err := os.WriteFile(text, out.Bytes(), 0o600); err != nil {
			t.Fatal(err)
		}
		runOK("restore", "--from", to, "--data", filepath.Join(t.TempDir(), "r"), "--key", text)
		fresh := t.TempDir()
		var errOut bytes.Buffer
		out.Reset()
		if code := run(context.Background(), []string{"backup", "key", "show", "--data", fresh}, &out, &errOut); code != 0 ||
			!strings.Contains(errOut.String(), "a new one is made, in "+filepath.Join(fresh, backup.KeyFile)) || !strings.HasPrefix(out.String(), "# ") {
			t.Errorf("backup key show of a folder with no key: exit %d, stdout:\n%s\nstderr:\n%s", code, out.String(), errOut.String())
		}
		if k, err := backup.LoadKey(fresh); err != nil || !strings.Contains(out.String(), k.Recipient()) {
			t.Errorf("backup key show of a folder with no key did not show the key it made: %v", err)
		}
	})
	t.Run("ErrNeedKey", func(t *testing.T) {
		other := filepath.Join(t.TempDir(), "other.key")
		if _, _, err := backup.LoadOrCreateKey(filepath.Dir(other)); err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct{ key, says string }{
			{"", "this copy is encrypted; give the key with --key FILE (the recovery text printed by `spark-engine backup key show`)"},
			{filepath.Join(filepath.Dir(other), backup.KeyFile), "the key given is not this copy's key (it was made for " + key.Recipient() + ")"},
		} {
			args := []string{"restore", "--from", to, "--data", filepath.Join(t.TempDir(), "r")}
			if tc.key != "" {
				args = append(args, "--key", tc.key)
			}
			var out, errOut bytes.Buffer
			if code := run(context.Background(), args, &out, &errOut); code != 1 || !strings.Contains(errOut.String(), tc.says) {
				t.Errorf("restore --key %q: exit %d, %s; want it to say %q", tc.key, code, errOut.String(), tc.says)
			}
		}
	})
	t.Run("SeqPastTheCopy", func(t *testing.T) {
		out := runOK("restore", "--from", to, "--data", filepath.Join(t.TempDir(), "r"), "--seq", "99", "--key", keyFile)
		if !strings.Contains(out, "the copy ends at seq 2, before the 99 asked") {
			t.Errorf("restore --seq 99 said:\n%s", out)
		}
	})
	t.Run("ErrDamaged", func(t *testing.T) {
		segs, err := filepath.Glob(filepath.Join(copyDir, "log", "*.seg"))
		if err != nil || len(segs) != 1 {
			t.Fatalf("segments %v, %v", segs, err)
		}
		b, err := os.ReadFile(segs[0])
		if err != nil {
			t.Fatal(err)
		}
		bad := t.TempDir()
		if err := os.MkdirAll(filepath.Join(bad, "log"), 0o700); err != nil {
			t.Fatal(err)
		}
		b[len(b)-3] ^= 1
		if err := os.WriteFile(filepath.Join(bad, "log", filepath.Base(segs[0])), b, 0o600); err != nil {
			t.Fatal(err)
		}
		man, err := os.ReadFile(filepath.Join(copyDir, "spark-backup.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(bad, "spark-backup.json"), man, 0o600); err != nil {
			t.Fatal(err)
		}
		var out, errOut bytes.Buffer
		code := run(context.Background(), []string{"restore", "--from", backup.FileURL(bad), "--data", filepath.Join(t.TempDir(), "r"), "--key", keyFile}, &out, &errOut)
		if code != 1 || !strings.Contains(errOut.String(), filepath.Base(segs[0])+" in ") || !strings.Contains(errOut.String(), "empty it") {
			t.Fatalf("restore of a damaged segment: exit %d, %s", code, errOut.String())
		}
	})
	t.Run("ErrNotEmpty", func(t *testing.T) {
		var out, errOut bytes.Buffer
		if code := run(context.Background(), []string{"restore", "--from", to, "--data", dst}, &out, &errOut); code != 1 || !strings.Contains(errOut.String(), "empty folder") {
			t.Fatalf("restore into a full folder: exit %d, %s", code, errOut.String())
		}
	})
	t.Run("ErrUsage", func(t *testing.T) {
		for _, args := range [][]string{
			{"backup", "--data", src.Dir},
			{"backup", "key", "--data", src.Dir},
			{"backup", "key", "show", "extra", "--data", src.Dir},
			{"restore", "--from", to},
			{"restore", "--from", to, "--data", dst + "2", "--seq", "1", "--at", "2026-01-01T00:00:00Z"},
			{"restore", "--from", to, "--data", dst + "2", "--at", "yesterday"},
		} {
			var out, errOut bytes.Buffer
			if code := run(context.Background(), args, &out, &errOut); code != 2 {
				t.Errorf("%q: exit %d, want 2: %s", args, code, errOut.String())
			}
		}
		if _, err := os.Stat(dst + "2"); !os.IsNotExist(err) {
			t.Errorf("a refused restore made its folder: %v", err)
		}
	})
}

// TestBackupRestoreCmd_S3 ships a running engine's folder to a bucket of a
// real S3 server (versitygw) with `backup --to s3://... --backup-endpoint`
// and restores it with `restore --from s3://...`; a missing bucket and a
// wrong secret each end with exit 1 and a sentence saying what to do.
func TestBackupRestoreCmd_S3(t *testing.T) {
	srv := versitygw.Start(t)
	srv.Env(t)
	srv.Bucket(t, "family")
	src := enginetest.Start(t, enginetest.WithoutSeat())
	c := client.New(src.URL, src.Token, nil)
	for _, caption := range []string{"the boiler code", "the gas bill"} {
		if _, _, err := c.CreateMoment(t.Context(), api.CreateMomentRequest{Kind: api.KindNote, Caption: caption}); err != nil {
			t.Fatal(err)
		}
	}
	engine := func(args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		code := run(context.Background(), append(args, "--backup-endpoint", srv.Endpoint), &out, &errOut)
		return code, out.String(), errOut.String()
	}
	to := "s3://family/spark"
	if code, out, errOut := engine("backup", "--data", src.Dir, "--to", to); code != 0 || !strings.Contains(out, "this run shipped 1 segment(s)") {
		t.Fatalf("backup: exit %d: %s%s", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(srv.Root, "family", "spark", "spark-backup.json")); err != nil {
		t.Errorf("the manifest is not at PREFIX/spark-backup.json in the bucket: %v", err)
	}
	if code, out, errOut := engine("backup", "--data", src.Dir, "--to", to); code != 0 || !strings.Contains(out, "this run shipped 0 segment(s)") {
		t.Errorf("a second backup: exit %d: %s%s", code, out, errOut)
	}
	dst := filepath.Join(t.TempDir(), "restored")
	code, out, errOut := engine("restore", "--from", to, "--data", dst, "--key", filepath.Join(src.Dir, backup.KeyFile))
	if code != 0 || !strings.Contains(out, "fsck: all good") || !strings.Contains(out, "through seq 2") {
		t.Fatalf("restore: exit %d: %s%s", code, out, errOut)
	}
	t.Run("ErrNoBucket", func(t *testing.T) {
		code, _, errOut := engine("backup", "--data", src.Dir, "--to", "s3://nobucket/spark")
		if code != 1 || !strings.Contains(errOut, `the bucket "nobucket" does not exist`) {
			t.Errorf("backup to a missing bucket: exit %d, %s", code, errOut)
		}
	})
	t.Run("ErrDenied", func(t *testing.T) {
		t.Setenv("AWS_SECRET_ACCESS_KEY", "wrong")
		code, _, errOut := engine("restore", "--from", to, "--data", filepath.Join(t.TempDir(), "r"))
		if code != 1 || !strings.Contains(errOut, "check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY") {
			t.Errorf("restore with a wrong secret: exit %d, %s", code, errOut)
		}
	})
}
