package main

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/jpeg"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sparkfamily/spark/engine/enginetest"
	"github.com/sparkfamily/spark/outbox"
)

// spark runs the command in-process and returns its exit code and output.
func spark(t *testing.T, vars map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(context.Background(), args, env{
		stdout: &out, stderr: &errOut,
		getenv:     func(k string) string { return vars[k] },
		isTerminal: func(io.Writer) bool { return false },
	})
	return code, out.String(), errOut.String()
}

func writeJPEG(t *testing.T, path string, shade uint8) {
	t.Helper()
	img := image.NewGray(image.Rect(0, 0, 40, 30))
	for i := range img.Pix {
		img.Pix[i] = shade + uint8(i%7)
	}
	var b bytes.Buffer
	jpeg.Encode(&b, img, nil)
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

type listing struct {
	Counts  outbox.Counts  `json:"counts"`
	Entries []outbox.Entry `json:"entries"`
}

func outboxJSON(t *testing.T, data string) listing {
	t.Helper()
	code, out, errOut := spark(t, nil, "--data", data, "outbox", "--json")
	if code != 0 {
		t.Fatalf("outbox --json: %d %s", code, errOut)
	}
	var l listing
	if err := json.Unmarshal([]byte(out), &l); err != nil {
		t.Fatalf("outbox --json output: %v\n%s", err, out)
	}
	return l
}

func TestSpark(t *testing.T) {
	eng := enginetest.Start(t)
	// Refuse the create of one photo (the one named "refused"), like an
	// engine that finds something wrong with it.
	var refuse atomic.Bool
	refuse.Store(true)
	u, _ := url.Parse(eng.URL)
	rp := httputil.NewSingleHostReverseProxy(u)
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if refuse.Load() && r.Method == http.MethodPost && r.URL.Path == "/v1/moments" {
			b, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(b))
			if bytes.Contains(b, []byte(`"taken_at":"2001-`)) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(422)
				io.WriteString(w, `{"error":{"code":"too_old","message":"this engine keeps no photos from 2001"}}`)
				return
			}
		}
		rp.ServeHTTP(w, r)
	}))
	defer proxy.Close()
	vars := map[string]string{"SPARK_ENGINE": proxy.URL, "SPARK_TOKEN": eng.Token}

	data := t.TempDir()
	src := t.TempDir()
	writeJPEG(t, filepath.Join(src, "a.jpg"), 10)
	writeJPEG(t, filepath.Join(src, "sub", "b.jpg"), 60)
	writeJPEG(t, filepath.Join(src, "refused.jpg"), 120)
	old := filepath.Join(src, "refused.jpg")
	when := mustTime(t, "2001-06-01T12:00:00Z")
	os.Chtimes(old, when, when)
	os.WriteFile(filepath.Join(src, "broken.jpg"), []byte("not really"), 0o644)
	os.WriteFile(filepath.Join(src, ".DS_Store"), []byte("x"), 0o644)

	t.Run("Version", func(t *testing.T) {
		code, out, _ := spark(t, nil, "--version")
		if code != 0 || !strings.HasPrefix(out, "spark ") {
			t.Errorf("--version = %d %q", code, out)
		}
	})
	t.Run("Import", func(t *testing.T) {
		code, out, _ := spark(t, nil, "--data", data, "import", src)
		if code != 1 || !strings.Contains(out, "3 added") || !strings.Contains(out, "1 failed") || !strings.Contains(out, "broken.jpg") {
			t.Errorf("import = %d\n%s", code, out)
		}
		code, out, _ = spark(t, nil, "import", filepath.Join(src, "a.jpg"), "--data", data)
		if code != 0 || !strings.Contains(out, "already imported") {
			t.Errorf("import again = %d\n%s", code, out)
		}
		if l := outboxJSON(t, data); l.Counts != (outbox.Counts{Pending: 3}) || len(l.Entries) != 3 {
			t.Errorf("outbox = %+v", l.Counts)
		}
	})
	t.Run("NoEngine", func(t *testing.T) {
		code, _, errOut := spark(t, nil, "--data", data, "drain")
		if code != 1 || !strings.Contains(errOut, "--engine") {
			t.Errorf("drain without engine = %d %q", code, errOut)
		}
	})
	var parkedID string
	t.Run("DrainParks", func(t *testing.T) {
		code, out, errOut := spark(t, vars, "--data", data, "drain", "--for", "20s")
		if code != 1 || !strings.Contains(out, "2 delivered, 0 pending, 1 parked") || !strings.Contains(errOut, "this engine keeps no photos from 2001") {
			t.Fatalf("drain = %d\n%s\n%s", code, out, errOut)
		}
		l := outboxJSON(t, data)
		if l.Counts != (outbox.Counts{Parked: 1, Done: 2}) {
			t.Fatalf("counts = %+v", l.Counts)
		}
		for _, e := range l.Entries {
			if e.State == outbox.Parked {
				parkedID = e.ID
				if e.LastCode != "too_old" || e.Name != "refused.jpg" {
					t.Errorf("parked entry = %+v", e)
				}
			}
		}
		_, text, _ := spark(t, nil, "--data", data, "outbox")
		if !strings.Contains(text, "parked: this engine keeps no photos from 2001 (too_old)") {
			t.Errorf("outbox listing:\n%s", text)
		}
	})
	t.Run("RetryAll", func(t *testing.T) {
		refuse.Store(false)
		if code, out, errOut := spark(t, nil, "--data", data, "retry", "--all"); code != 0 || !strings.Contains(out, "1 parked") {
			t.Fatalf("retry --all = %d %s %s", code, out, errOut)
		}
		code, out, errOut := spark(t, vars, "--data", data, "drain")
		if code != 0 || !strings.Contains(out, "1 delivered, 0 pending, 0 parked") {
			t.Fatalf("drain = %d\n%s\n%s", code, out, errOut)
		}
		if n := eng.OpCount(t, "moment.create"); n != 3 {
			t.Errorf("%d moment.create ops, want 3", n)
		}
		if parkedID == "" {
			t.Fatal("no parked entry seen")
		}
	})
	t.Run("Discard", func(t *testing.T) {
		writeJPEG(t, filepath.Join(src, "later.jpg"), 200)
		spark(t, nil, "--data", data, "import", filepath.Join(src, "later.jpg"))
		var id string
		for _, e := range outboxJSON(t, data).Entries {
			if e.State == outbox.Pending {
				id = e.ID
			}
		}
		export := t.TempDir()
		code, out, errOut := spark(t, nil, "--data", data, "discard", id, "--export", export)
		if code != 0 || !strings.Contains(out, "discarded "+id) {
			t.Fatalf("discard = %d %s %s", code, out, errOut)
		}
		want, _ := os.ReadFile(filepath.Join(src, "later.jpg"))
		got, err := os.ReadFile(filepath.Join(export, "later.jpg"))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("exported original differs (%v)", err)
		}
		if code, _, errOut := spark(t, nil, "--data", data, "discard", id); code != 1 || !strings.Contains(errOut, "no such entry") {
			t.Errorf("discard again = %d %q", code, errOut)
		}
	})
	t.Run("Usage", func(t *testing.T) {
		for _, args := range [][]string{{"frobnicate"}, {"import"}, {"retry"}, {"discard"}, {"drain", "extra"}} {
			if code, _, _ := spark(t, nil, append([]string{"--data", data}, args...)...); code != 2 {
				t.Errorf("%v: exit %d, want 2", args, code)
			}
		}
	})
}

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	tm, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return tm
}
