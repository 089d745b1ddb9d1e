package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sparkfamily/spark/engine"
	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/auth"
)

// The tests run the command as a separate process: this test binary,
// re-executed with runMainEnv set, behaves as spark-engine itself.
const runMainEnv = "SPARK_ENGINE_TEST_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(runMainEnv) == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

// command makes an *exec.Cmd running spark-engine with args.
func command(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = append(os.Environ(), runMainEnv+"=1", "SPARK_BRAIN_URL=", "SPARK_BRAIN_MODEL=", "SPARK_BRAIN_KEY=")
	return cmd
}

// spark runs spark-engine to the end and returns its output and exit code.
func spark(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	stdout, stderr, code, err := runSpark(t, args...)
	if err != nil {
		t.Fatal(err)
	}
	return stdout, stderr, code
}

// runSpark is spark for another goroutine than the test's: it returns an
// error, for the test's goroutine to report, when spark-engine did not run
// to an exit code.
func runSpark(t *testing.T, args ...string) (stdout, stderr string, code int, err error) {
	cmd := command(t, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	code = cmd.ProcessState.ExitCode()
	if err != nil && code < 0 {
		return "", "", code, fmt.Errorf("spark-engine %v: %w", args, err)
	}
	return out.String(), errb.String(), code, nil
}

func TestVersionAndUsage(t *testing.T) {
	for _, tc := range []struct {
		args     []string
		code     int
		inStdout string
		inStderr string
	}{
		{[]string{"--version"}, 0, "spark-engine dev", ""},
		{[]string{"-h"}, 0, "spark-engine token add NAME", ""},
		{nil, 2, "", "no command given"},
		{[]string{"launch"}, 2, "", `unknown command "launch"`},
		{[]string{"token"}, 2, "", "token needs a subcommand"},
		{[]string{"token", "add"}, 2, "", "exactly one NAME"},
		{[]string{"token", "add", "a", "b"}, 2, "", "exactly one NAME"},
		{[]string{"serve", "--nope"}, 2, "", "flag provided but not defined: -nope"},
		{[]string{"serve", "--trusted-proxy", "127.0.0.1,proxy.example.org"}, 2, "", `"proxy.example.org" is not an IP address or a CIDR prefix`},
		{[]string{"serve", "--turns-per-day", "-1"}, 2, "", "--turns-per-day must be 0 (no daily limit) or more"},
		{[]string{"serve", "--keep-deleted-days", "-3"}, 2, "", "--keep-deleted-days must be between 0 (for ever) and 36500"},
		{[]string{"serve", "--keep-deleted-days", "soon"}, 2, "", `invalid value "soon" for flag -keep-deleted-days`},
		{[]string{"fsck", "--data", "/nonexistent/spark"}, 1, "", "pass the engine's directory with --data DIR"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			out, errOut, code := spark(t, tc.args...)
			if code != tc.code || !strings.Contains(out, tc.inStdout) || !strings.Contains(errOut, tc.inStderr) {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit %d with %q / %q", code, out, errOut, tc.code, tc.inStdout, tc.inStderr)
			}
		})
	}
}

func TestToken(t *testing.T) {
	dir := t.TempDir()
	out, errOut, code := spark(t, "token", "add", "alice", "--data", dir)
	if code != 0 {
		t.Fatalf("token add: exit %d: %s", code, errOut)
	}
	// stdout holds the token alone, so `TOKEN=$(spark-engine token add NAME)` works.
	token := strings.TrimSuffix(out, "\n")
	if token == "" || strings.ContainsAny(token, " \n\t") {
		t.Fatalf("token add printed %q, want the token alone on one line", out)
	}
	store, err := auth.Open(filepath.Join(dir, engine.TokensFile))
	if err != nil {
		t.Fatal(err)
	}
	if name, ok := store.Check(token); !ok || name != "alice" {
		t.Fatalf("the printed token checks as (%q, %v), want alice", name, ok)
	}

	spark(t, "token", "add", "--data", dir, "bob")
	out, _, code = spark(t, "token", "list", "--data", dir)
	if code != 0 || !strings.Contains(out, "alice") || !strings.Contains(out, "bob") || strings.Contains(out, token) {
		t.Fatalf("token list: exit %d, %q; want both names and no token", code, out)
	}
	if _, errOut, code := spark(t, "token", "revoke", "alice", "--data", dir); code != 0 {
		t.Fatalf("revoke: exit %d: %s", code, errOut)
	}
	// A fresh store, as a restarted engine sees the file: a running one
	// notices within a second (engine/auth's TestStore_NoticesOtherProcess),
	// which this fast test must not race against.
	after, err := auth.Open(filepath.Join(dir, engine.TokensFile))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := after.Check(token); ok {
		t.Fatal("a revoked token still checks")
	}
	if _, errOut, code := spark(t, "token", "revoke", "alice", "--data", dir); code != 1 || !strings.Contains(errOut, "no token named") {
		t.Fatalf("revoking again: exit %d, %q; want 1 and a message", code, errOut)
	}
}

// serveAddr matches the serve command's "serving" log line.
var serveAddr = regexp.MustCompile(`msg=serving addr=(\S+)`)

func TestServe_SIGTERM(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows has no SIGTERM to send (Process.Signal refuses it; under Wine it would be a kill): " +
			"Windows sends console close, logoff and shutdown events instead, which Go reports as SIGTERM; " +
			"TestServe_CtrlBreak and TestServe_StopInProcess stop serve there, and TestStopGrace checks the shorter grace of those events")
	}
	testServeStops(t, serveProcess(nil, func(cmd *exec.Cmd) error { return cmd.Process.Signal(syscall.SIGTERM) }))
}

// A running serve, for testServeStops: its log, how to stop it, and how to
// wait for it to end.
type serveRun struct {
	stderr io.Reader
	stop   func() error
	wait   func() error
}

// serveProcess starts serve as a process (prepare, if set, readies the
// command first) to be stopped by stop.
func serveProcess(prepare func(*exec.Cmd), stop func(*exec.Cmd) error) func(*testing.T, []string) serveRun {
	return func(t *testing.T, args []string) serveRun {
		cmd := command(t, args...)
		if prepare != nil {
			prepare(cmd)
		}
		stderr, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return serveRun{stderr: stderr, stop: func() error { return stop(cmd) }, wait: cmd.Wait}
	}
}

// TestToken_Scope: a new token is device unless --scope admin is given;
// token list shows each scope; an unknown scope is a usage error.
func TestToken_Scope(t *testing.T) {
	dir := t.TempDir()
	dev, errOut, code := spark(t, "token", "add", "kid", "--data", dir)
	if code != 0 {
		t.Fatalf("token add: exit %d: %s", code, errOut)
	}
	adm, errOut, code := spark(t, "token", "add", "me", "--scope", "admin", "--data", dir)
	if code != 0 {
		t.Fatalf("token add --scope admin: exit %d: %s", code, errOut)
	}
	if _, errOut, code := spark(t, "token", "add", "x", "--scope", "root", "--data", dir); code != 2 || !strings.Contains(errOut, "--scope") {
		t.Errorf("token add --scope root: exit %d, %q; want a usage error", code, errOut)
	}
	store, err := auth.Open(filepath.Join(dir, engine.TokensFile))
	if err != nil {
		t.Fatal(err)
	}
	for tok, want := range map[string]auth.Scope{strings.TrimSpace(dev): auth.ScopeDevice, strings.TrimSpace(adm): auth.ScopeAdmin} {
		if got, ok := store.Lookup(tok); !ok || got.Scope != want {
			t.Errorf("Lookup = %+v, %v; want scope %s", got, ok, want)
		}
	}
	out, _, _ := spark(t, "token", "list", "--data", dir)
	if !regexp.MustCompile(`kid\s+kid\s+device`).MatchString(out) || !regexp.MustCompile(`me\s+me\s+admin`).MatchString(out) {
		t.Errorf("token list = %q; want each token's scope", out)
	}
}

// testServeStops runs serve with start, creates a moment, starts an
// upload, stops serve while the upload is in flight, and checks that the
// upload finished, serve said its log is synced and ended without error,
// and the log holds both.
func testServeStops(t *testing.T, start func(*testing.T, []string) serveRun) {
	dir := t.TempDir()
	token, _, code := spark(t, "token", "add", "test", "--data", dir)
	if code != 0 {
		t.Fatal("token add failed")
	}
	token = strings.TrimSpace(token)

	run := start(t, []string{"serve", "--data", dir, "--listen", "127.0.0.1:0"})
	stderr := run.stderr
	lines := make(chan string, 100)
	var logBuf bytes.Buffer
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	var base string
	for base == "" {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatalf("serve exited before listening: %s", logBuf.String())
			}
			logBuf.WriteString(line + "\n")
			if m := serveAddr.FindStringSubmatch(line); m != nil {
				base = "http://" + m[1]
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("serve did not say where it listens: %s", logBuf.String())
		}
	}

	post := func(path, body string) *http.Response {
		req, _ := http.NewRequest("POST", base+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	resp := post("/v1/moments", `{"client_request_id":"before-sigterm","kind":"note","caption":"kept"}`)
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("create: %d", resp.StatusCode)
	}

	// An upload in flight when the signal comes must still finish.
	resp = post("/v1/moments", `{"client_request_id":"photo","kind":"photo"}`)
	var mr struct{ Moment api.Moment }
	decodeJSON(t, resp, &mr)
	pr, pw := io.Pipe()
	req, _ := http.NewRequest("PUT", base+"/v1/media/01JD0000000000000000000000?role=original&moment="+mr.Moment.ID, pr)
	req.Header.Set("Authorization", "Bearer "+token)
	done := make(chan int, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			done <- -1
			return
		}
		resp.Body.Close()
		done <- resp.StatusCode
	}()
	pw.Write(bytes.Repeat([]byte("a"), 64<<10))
	// Give the request time to reach its handler before the signal.
	time.Sleep(200 * time.Millisecond)
	if err := run.stop(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	pw.Write(bytes.Repeat([]byte("b"), 64<<10))
	pw.Close()
	if status := <-done; status != http.StatusCreated {
		t.Fatalf("the upload in flight at the stop signal answered %d, want 201", status)
	}
	for line := range lines {
		logBuf.WriteString(line + "\n")
	}
	if err := run.wait(); err != nil {
		t.Fatalf("serve after the stop signal: %v; log:\n%s", err, logBuf.String())
	}
	if !strings.Contains(logBuf.String(), "the log is synced") {
		t.Errorf("log does not say it stopped cleanly:\n%s", logBuf.String())
	}

	// The create answered before the signal, and the upload, are in the log.
	eng, err := engine.Open(context.Background(), engine.Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	ops, _, err := eng.Ops(context.Background(), 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range ops {
		got = append(got, o.Op+"/"+o.ClientRequestID)
	}
	want := "moment.create/before-sigterm moment.create/photo media.put/"
	if strings.Join(got, " ") != want {
		t.Fatalf("log holds %q, want %q", got, want)
	}
}

func decodeJSON(t *testing.T, resp *http.Response, v any) {
	t.Helper()
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode >= 300 {
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
}

// makeData writes an engine's data directory with a moment and a media file.
func makeData(t *testing.T) (dir, momentID string) {
	t.Helper()
	dir = t.TempDir()
	ctx := context.Background()
	eng, err := engine.Open(ctx, engine.Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := eng.CreateMoment(ctx, api.CreateMomentRequest{ClientRequestID: "one", Kind: api.KindPhoto, Caption: "kept"})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := eng.PutMedia(ctx, engine.PutMedia{ID: "01JD0000000000000000000001", MomentID: m.ID, Role: api.RoleCopy, Body: strings.NewReader("small copy bytes")}); err != nil {
		t.Fatal(err)
	}
	if err := eng.Close(); err != nil {
		t.Fatal(err)
	}
	return dir, m.ID
}

func TestFsck(t *testing.T) {
	t.Run("Good", func(t *testing.T) {
		dir, _ := makeData(t)
		out, errOut, code := spark(t, "fsck", "--data", dir)
		if code != 0 {
			t.Fatalf("fsck of good data: exit %d\n%s%s", code, out, errOut)
		}
	})
	t.Run("DamagedMedia", func(t *testing.T) {
		dir, _ := makeData(t)
		damageOneFile(t, filepath.Join(dir, engine.MediaDir))
		if out, errOut, code := spark(t, "fsck", "--data", dir); code != 1 {
			t.Fatalf("fsck with damaged media: exit %d, want 1\n%s%s", code, out, errOut)
		}
	})
	t.Run("DamagedLog", func(t *testing.T) {
		dir, _ := makeData(t)
		path := filepath.Join(dir, engine.LogFile)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		b[len(b)/4] ^= 0xFF // inside the first record, not a torn tail
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
		if out, errOut, code := spark(t, "fsck", "--data", dir); code != 1 {
			t.Fatalf("fsck with a damaged log: exit %d, want 1\n%s%s", code, out, errOut)
		}
	})
}

// damageOneFile flips a byte of the first regular file under root.
func damageOneFile(t *testing.T, root string) {
	t.Helper()
	var done bool
	filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || done || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil || len(b) == 0 {
			return err
		}
		b[0] ^= 0xFF
		os.Chmod(path, 0o600)
		done = true
		return os.WriteFile(path, b, 0o600)
	})
	if !done {
		t.Fatalf("no file under %s to damage", root)
	}
}

func TestRebuild(t *testing.T) {
	dir, momentID := makeData(t)
	for _, suffix := range []string{"", "-wal", "-shm"} {
		os.Remove(filepath.Join(dir, engine.MirrorFile+suffix))
	}
	if out, errOut, code := spark(t, "rebuild", "--data", dir); code != 0 {
		t.Fatalf("rebuild: exit %d\n%s%s", code, out, errOut)
	}
	if out, errOut, code := spark(t, "fsck", "--data", dir); code != 0 {
		t.Fatalf("fsck after rebuild: exit %d\n%s%s", code, out, errOut)
	}
	eng, err := engine.Open(context.Background(), engine.Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	m, err := eng.Moment(context.Background(), momentID)
	if err != nil || m.Caption != "kept" || m.Copy == nil {
		t.Fatalf("moment after rebuild: %+v, %v", m, err)
	}
	// The request memory came back too.
	again, created, err := eng.CreateMoment(context.Background(), api.CreateMomentRequest{ClientRequestID: "one", Kind: api.KindPhoto})
	if err != nil || created || again.ID != momentID {
		t.Fatalf("repeat after rebuild: %v created %v, %v", again, created, err)
	}
}

// TestToken_Member: --member makes tokens of one family member; without
// it a token is the member of its own name; token list shows each
// token's member; a bad member is a usage error.
func TestToken_Member(t *testing.T) {
	dir := t.TempDir()
	var toks []string
	for _, args := range [][]string{
		{"token", "add", "dad-laptop", "--member", "dad", "--data", dir},
		{"token", "add", "dad-desktop", "--member", "dad", "--data", dir},
		{"token", "add", "mum", "--data", dir},
	} {
		out, errOut, code := spark(t, args...)
		if code != 0 {
			t.Fatalf("%q: exit %d: %s", args, code, errOut)
		}
		toks = append(toks, strings.TrimSpace(out))
	}
	if _, errOut, code := spark(t, "token", "add", "x", "--member", " dad", "--data", dir); code != 2 || !strings.Contains(errOut, "--member") {
		t.Errorf("token add --member ' dad': exit %d, %q; want a usage error", code, errOut)
	}
	store, err := auth.Open(filepath.Join(dir, engine.TokensFile))
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"dad", "dad", "mum"} {
		if got, ok := store.Lookup(toks[i]); !ok || got.Member != want {
			t.Errorf("Lookup(token %d) = %+v, %v; want member %s", i, got, ok, want)
		}
	}
	out, _, _ := spark(t, "token", "list", "--data", dir)
	for _, re := range []string{`NAME\s+MEMBER\s+SCOPE`, `dad-laptop\s+dad\s+device`, `dad-desktop\s+dad\s+device`, `mum\s+mum\s+device`} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("token list = %q; want a line matching %s", out, re)
		}
	}
}
