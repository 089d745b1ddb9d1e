// Package caddytest runs a real Caddy in front of an engine for a test,
// set up as README.md and docs/ENGINE.md tell a family to, so that the
// tests check the recipe itself. A test skips when no caddy is on the
// PATH (Debian: apt-get install caddy).
package caddytest

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// caddyfile is docs/ENGINE.md's recipe, on plain HTTP at addr (the test
// has no certificate), in front of the engine at engine.
const caddyfile = `{
	admin off
	auto_https off
}
http://%s {
	reverse_proxy %s {
		flush_interval -1
	}
	request_body {
		max_size 300MB
	}
}
`

// Start runs a real Caddy (skipping tb when none is installed) with the
// recipe's settings in front of engineURL, until the end of the test, and
// returns its URL.
func Start(tb testing.TB, engineURL string) string {
	tb.Helper()
	bin, err := exec.LookPath("caddy")
	if err != nil {
		tb.Skip("no caddy on PATH (Debian: apt-get install caddy)")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	conf := filepath.Join(tb.TempDir(), "Caddyfile")
	if err := os.WriteFile(conf, fmt.Appendf(nil, caddyfile, addr, strings.TrimPrefix(engineURL, "http://")), 0o600); err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command(bin, "run", "--config", conf, "--adapter", "caddyfile")
	cmd.Env = append(os.Environ(), "HOME="+tb.TempDir(), "XDG_DATA_HOME="+tb.TempDir(), "XDG_CONFIG_HOME="+tb.TempDir())
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	url := "http://" + addr
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if resp, err := http.Get(url + "/v1/health"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return url
			}
		}
	}
	tb.Fatal("caddy did not start")
	return ""
}
