package client_test

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/client"
	"github.com/sparkfamily/spark/engine/enginetest"
	"github.com/sparkfamily/spark/internal/faultproxy"
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

// startCaddy runs a real Caddy (skipping when none is installed) with the
// README's settings in front of engineURL and returns its URL.
func startCaddy(t *testing.T, engineURL string) string {
	t.Helper()
	bin, err := exec.LookPath("caddy")
	if err != nil {
		t.Skip("no caddy on PATH (Debian: apt-get install caddy)")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	conf := filepath.Join(t.TempDir(), "Caddyfile")
	if err := os.WriteFile(conf, fmt.Appendf(nil, caddyfile, addr, strings.TrimPrefix(engineURL, "http://")), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "run", "--config", conf, "--adapter", "caddyfile")
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "XDG_DATA_HOME="+t.TempDir(), "XDG_CONFIG_HOME="+t.TempDir())
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	url := "http://" + addr
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if resp, err := http.Get(url + "/v1/health"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return url
			}
		}
	}
	t.Fatal("caddy did not start")
	return ""
}

// TestUploadMedia_ThroughCaddy: the resumable path works through a real
// Caddy set up as docs/ENGINE.md says, and through a link cut every 1 MiB
// in front of it an original arrives whole with at most 1.2x its size sent.
func TestUploadMedia_ThroughCaddy(t *testing.T) {
	eng := enginetest.Start(t, enginetest.WithoutSeat())
	caddy := startCaddy(t, eng.URL)
	for _, cut := range []int64{0, 1 << 20} {
		t.Run(fmt.Sprintf("cut%d", cut), func(t *testing.T) {
			direct := client.New(eng.URL, eng.Token, nil)
			data, sum, momentID, id := original(t, direct, 12<<20)
			px := faultproxy.New(t, caddy, nil)
			px.CutUploadsAfter(cut)
			c := client.New(px.URL(), eng.Token, nil)
			var partial bool
			m, created, err := c.UploadMedia(context.Background(), client.UploadMedia{ID: id, MomentID: momentID, Role: api.RoleOriginal,
				From: bytes.NewReader(data), Size: int64(len(data)), SHA256: sum[:], Progress: func(held int64) { partial = partial || held < int64(len(data)) }})
			if err != nil || !created || m.Size != int64(len(data)) {
				t.Fatalf("%+v created %v, %v", m, created, err)
			}
			if !partial {
				t.Fatal("no progress before the end: the upload did not take the resumable path")
			}
			if !bytes.Equal(eng.Media(t, id), data) {
				t.Fatal("the stored bytes are not the file")
			}
			up := px.BytesUp()
			t.Logf("%d bytes up for a %d-byte file (%.3fx)", up, len(data), float64(up)/float64(len(data)))
			if float64(up) > 1.2*float64(len(data)) {
				t.Fatalf("%d bytes went up for a %d-byte file: more than 1.2 times", up, len(data))
			}
		})
	}
}
