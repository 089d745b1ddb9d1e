package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sparkfamily/spark/engine"
	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/backup"
)

// TestServe_BackupTo (issue 34, item 1): serve --backup-to keeps a copy:
// moments captured over HTTP are in it within the 10 s interval and a
// pass, GET /v1/health says backup "current" with shipped_seq == seq,
// and after SIGTERM the copy holds every op, one captured just before
// the signal too.
func TestServe_BackupTo(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("stopped by SIGTERM, which Windows has not; TestServe_StopInProcess covers the stop there")
	}
	dir := t.TempDir()
	token, _, code := spark(t, "token", "add", "dad", "--data", dir)
	if code != 0 {
		t.Fatal("token add failed")
	}
	token = strings.TrimSpace(token)
	copyDir := filepath.Join(t.TempDir(), "copy")
	cmd := command(t, "serve", "--data", dir, "--listen", "127.0.0.1:0", "--backup-to", backup.FileURL(copyDir))
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var logBuf bytes.Buffer
	addr := make(chan string, 1)
	logDone := make(chan struct{})
	go func() {
		defer close(logDone)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			mu.Lock()
			logBuf.WriteString(sc.Text() + "\n")
			mu.Unlock()
			if m := serveAddr.FindStringSubmatch(sc.Text()); m != nil {
				addr <- "http://" + m[1]
			}
		}
	}()
	logText := func() string { mu.Lock(); defer mu.Unlock(); return logBuf.String() }
	var base string
	select {
	case base = <-addr:
	case <-time.After(30 * time.Second):
		t.Fatalf("serve did not say where it listens:\n%s", logText())
	}
	capture := func(i int) {
		req, _ := http.NewRequest("POST", base+"/v1/moments", strings.NewReader(fmt.Sprintf(`{"client_request_id":"m%d","kind":"note","caption":"moment %d"}`, i, i)))
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusCreated {
			t.Fatalf("create: %d", resp.StatusCode)
		}
	}
	for i := range 3 {
		capture(i)
	}
	t0 := time.Now()
	var h api.Health
	for {
		resp, err := http.Get(base + "/v1/health")
		if err != nil {
			t.Fatal(err)
		}
		h = api.Health{}
		decodeJSON(t, resp, &h)
		if b := h.Backup; b != nil && b.State == api.BackupCurrent && b.Seq >= 3 && b.ShippedSeq == b.Seq {
			break
		}
		if time.Since(t0) > 15*time.Second {
			t.Fatalf("after 15 s health says backup %+v; want current with shipped_seq == seq >= 3; log:\n%s", h.Backup, logText())
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Logf("the copy caught up in %s: %+v", time.Since(t0).Round(time.Millisecond), *h.Backup)

	// The disk unplugged: health says so within a pass, and its reason,
	// which names the folder, only to a holder of a token.
	if err := os.Rename(copyDir, copyDir+"-away"); err != nil {
		t.Fatal(err)
	}
	capture(100)
	health := func(withToken bool) api.Health {
		req, _ := http.NewRequest("GET", base+"/v1/health", nil)
		if withToken {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var h api.Health
		decodeJSON(t, resp, &h)
		return h
	}
	for t0 = time.Now(); ; time.Sleep(100 * time.Millisecond) {
		if b := health(false).Backup; b != nil && b.State == api.BackupFailing {
			if b.Problem != api.BackupUnreachable || b.Reason != "" {
				t.Errorf("health with no token, the disk away: %+v; want unreachable and no reason", *b)
			}
			break
		}
		if time.Since(t0) > 15*time.Second {
			t.Fatalf("15 s after the disk went, health says %+v; log:\n%s", health(false).Backup, logText())
		}
	}
	if b := health(true).Backup; b == nil || !strings.Contains(b.Reason, copyDir) {
		t.Errorf("health with a token, the disk away: %+v; want the reason, naming %s", b, copyDir)
	}
	if err := os.Rename(copyDir+"-away", copyDir); err != nil {
		t.Fatal(err)
	}

	capture(3) // just before the signal: the last pass ships it
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	<-logDone
	if err := cmd.Wait(); err != nil {
		t.Fatalf("serve after SIGTERM: %v; log:\n%s", err, logText())
	}
	log, err := os.ReadFile(filepath.Join(dir, engine.LogFile))
	if err != nil {
		t.Fatal(err)
	}
	copyT, err := backup.OpenFolder(copyDir)
	if err != nil {
		t.Fatal(err)
	}
	key, err := backup.LoadKey(dir)
	if err != nil {
		t.Fatalf("serve --backup-to made no key: %v", err)
	}
	restored := filepath.Join(t.TempDir(), "restored")
	if _, err := backup.Restore(context.Background(), copyT, restored, backup.RestoreOptions{Key: key}); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(restored, engine.LogFile))
	if err != nil || !bytes.Equal(got, log) {
		t.Fatalf("the copy restores %d bytes of log, the engine's is %d (%v); log:\n%s", len(got), len(log), err, logText())
	}
	// The unplugged disk, said once when it began (not at every pass),
	// and once when it cleared.
	if n := strings.Count(logText(), "the off-site copy has a problem"); n != 1 {
		t.Errorf("serve logged %d problems of a copy that had one:\n%s", n, logText())
	}
}

// TestServe_BackupToBad: a --backup-to that cannot be opened is a usage
// error in words, before anything is served.
func TestServe_BackupToBad(t *testing.T) {
	for target, want := range map[string]string{
		"ftp://x/y":       "neither file:///PATH nor s3://BUCKET/PREFIX",
		"file://host/x":   "three slashes",
		"s3://b/p":        "", // fine, with the endpoint below refused
		"file:///tmp/abc": "--backup-endpoint names an S3 store",
	} {
		args := []string{"serve", "--data", t.TempDir(), "--listen", "127.0.0.1:0", "--backup-to", target}
		if want == "" || strings.HasPrefix(target, "file:///tmp") {
			args = append(args, "--backup-endpoint", "not-a-url")
			if want == "" {
				want = "is not http(s)://HOST[:PORT]"
			}
		}
		_, errOut, code := spark(t, args...)
		if code != 2 || !strings.Contains(errOut, want) {
			t.Errorf("serve --backup-to %s: exit %d, %q; want 2 saying %q", target, code, errOut, want)
		}
	}
	if _, errOut, code := spark(t, "serve", "--data", t.TempDir(), "--backup-endpoint", "http://x"); code != 2 || !strings.Contains(errOut, "--backup-to") {
		t.Errorf("serve --backup-endpoint without --backup-to: exit %d, %q", code, errOut)
	}
}
