package server_test

import (
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/enginetest"
	"github.com/sparkfamily/spark/engine/server"
)

// Issue 25, item 5: an upload's deadline came from its own Content-Length
// (2^40 gave ~388 days). An upload declared past the media limit is
// refused with 413 at once, before its body is read.
func TestUploadDeclaredPastTheLimit(t *testing.T) {
	const limit = 1 << 20
	e := enginetest.Start(t, enginetest.WithoutSeat(), enginetest.WithMaxMediaSize(limit))
	addr := serveHTTP(t, e, server.HTTPOptions{MaxMediaSize: limit})
	m := createMoment(t, e, api.CreateMomentRequest{Kind: api.KindPhoto})
	for _, n := range []int64{limit + 1, 1 << 40} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			start := time.Now()
			fmt.Fprintf(c, "PUT /v1/media/%s?moment=%s&role=copy HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer %s\r\nContent-Type: image/jpeg\r\nContent-Length: %d\r\n\r\nxx", newID(), m.ID, e.Token, n)
			status, closed := readToClose(c, 3*time.Second)
			if !closed || !strings.HasPrefix(status, "HTTP/1.1 413 ") {
				t.Fatalf("an upload declaring %d bytes (limit %d) got %q (closed: %v) after %v, want 413 at once and a closed connection",
					n, limit, status, closed, time.Since(start).Round(time.Millisecond))
			}
		})
	}
}

// Issue 25, item 5: an upload that trickles (a byte every 100 ms here, every
// 5 s in the review) within its declared length is cut off soon after the
// base time, not held until base + length/MinTransferRate; its temp file
// goes with it.
func TestUploadTrickleIsCutOff(t *testing.T) {
	e := enginetest.Start(t, enginetest.WithoutSeat())
	const base = 300 * time.Millisecond
	// The answer's own time counts from the end of the body: a body cut off
	// after AnswerTimeout still gets its 408.
	addr := serveHTTP(t, e, server.HTTPOptions{MediaBodyTimeout: base, AnswerTimeout: 500 * time.Millisecond})
	m := createMoment(t, e, api.CreateMomentRequest{Kind: api.KindPhoto})
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// 1 MiB declared: the old deadline was base + 32 s.
	start := time.Now()
	fmt.Fprintf(c, "PUT /v1/media/%s?moment=%s&role=copy HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer %s\r\nContent-Type: image/jpeg\r\nContent-Length: %d\r\n\r\n", newID(), m.ID, e.Token, 1<<20)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				if _, err := c.Write([]byte{'x'}); err != nil {
					return
				}
			}
		}
	}()
	status, closed := readToClose(c, 8*time.Second)
	took := time.Since(start)
	if !closed || !strings.HasPrefix(status, "HTTP/1.1 408 ") {
		t.Fatalf("a trickling upload got %q (closed: %v) after %v, want 408 within a few seconds", status, closed, took.Round(time.Millisecond))
	}
	t.Logf("cut off after %v", took.Round(time.Millisecond))
	tmp, _ := filepath.Glob(filepath.Join(e.Dir, "*", "tmp", "*"))
	tmp2, _ := filepath.Glob(filepath.Join(e.Dir, "tmp", "*"))
	if len(tmp)+len(tmp2) != 0 {
		t.Fatalf("temp files left: %v %v", tmp, tmp2)
	}
}

// Issue 25, item 8: a request may ask for at most 16 ranges
// (server.MaxRanges); with more, the Range header is ignored and the whole
// file is served, once (70,000 one-byte ranges made a 9.7 MB answer).
func TestMediaRangesCapped(t *testing.T) {
	e := enginetest.Start(t, enginetest.WithoutSeat())
	m := createMoment(t, e, api.CreateMomentRequest{Kind: api.KindPhoto})
	data := randomBytes(t, 10_000)
	id := newID()
	call(t, e, "PUT", mediaPath(id, m.ID, "copy"), data, "Content-Type", "image/jpeg").want(t, 201, nil)
	ranges := func(n int) string {
		var b strings.Builder
		b.WriteString("bytes=")
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "%d-%d", i%10_000, i%10_000)
		}
		return b.String()
	}
	a := call(t, e, "GET", "/v1/media/"+id, nil, "Range", ranges(server.MaxRanges))
	if a.Status != 206 || !strings.HasPrefix(a.Header.Get("Content-Type"), "multipart/byteranges") {
		t.Fatalf("%d ranges: status %d, Content-Type %q; want 206 multipart", server.MaxRanges, a.Status, a.Header.Get("Content-Type"))
	}
	for _, n := range []int{server.MaxRanges + 1, 70_000} {
		a := call(t, e, "GET", "/v1/media/"+id, nil, "Range", ranges(n))
		if a.Status != 200 || len(a.Body) != len(data) {
			t.Fatalf("%d ranges: status %d, %d bytes; want 200 and the whole file (%d bytes)", n, a.Status, len(a.Body), len(data))
		}
	}
}
