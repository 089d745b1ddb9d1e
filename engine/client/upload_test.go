package client_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/client"
	"github.com/sparkfamily/spark/engine/enginetest"
	"github.com/sparkfamily/spark/engine/server"
	"github.com/sparkfamily/spark/internal/faultproxy"
)

// original makes a file of n random bytes and a moment to hold it.
func original(t *testing.T, c *client.Client, n int) (data []byte, sum [32]byte, momentID, mediaID string) {
	t.Helper()
	data = make([]byte, n)
	rand.Read(data)
	sum = sha256.Sum256(data)
	momentID, mediaID = newID(), newID()
	if _, _, err := c.CreateMoment(context.Background(), api.CreateMomentRequest{ID: momentID, Kind: api.KindPhoto, OriginalID: mediaID}); err != nil {
		t.Fatal(err)
	}
	return data, sum, momentID, mediaID
}

// Through a link that drops every connection after N bytes of upload, an
// original arrives whole, once, with its SHA-256, and no more than 1.2
// times its size goes up the link.
func TestUploadMedia_CutLink(t *testing.T) {
	for _, tc := range []struct {
		size int
		cut  int64
	}{
		{3 << 20, 256 << 10},
		{5 << 20, 1 << 20},
		{9 << 20, 4 << 20},
		{34 << 20, 2 << 20},
	} {
		t.Run(fmt.Sprintf("%dMiB_cut%dKiB", tc.size>>20, tc.cut>>10), func(t *testing.T) {
			if testing.Short() && tc.size > 8<<20 {
				t.Skip("a large file")
			}
			eng := enginetest.Start(t, enginetest.WithoutSeat())
			direct := client.New(eng.URL, eng.Token, nil)
			data, sum, momentID, id := original(t, direct, tc.size)
			px := faultproxy.New(t, eng.URL, nil)
			px.CutUploadsAfter(tc.cut)
			c := client.New(px.URL(), eng.Token, nil)
			var seen []int64
			m, created, err := c.UploadMedia(context.Background(), client.UploadMedia{
				ID: id, MomentID: momentID, Role: api.RoleOriginal, ContentType: "image/jpeg",
				From: bytes.NewReader(data), Size: int64(len(data)), SHA256: sum[:],
				Progress: func(held int64) { seen = append(seen, held) },
			})
			if err != nil {
				t.Fatal(err)
			}
			if !created || m.SHA256 != hexOf(sum[:]) || m.Size != int64(len(data)) {
				t.Fatalf("media %+v created %v", m, created)
			}
			if got := eng.Media(t, id); !bytes.Equal(got, data) {
				t.Fatal("the stored bytes are not the file")
			}
			if n := eng.OpCount(t, api.OpMediaPut); n != 1 {
				t.Fatalf("%d media.put ops, want 1", n)
			}
			up := px.BytesUp()
			t.Logf("%d bytes up for a %d-byte file (%.3fx), progress %v", up, len(data), float64(up)/float64(len(data)), seen)
			if float64(up) > 1.2*float64(len(data)) {
				t.Fatalf("%d bytes went up for a %d-byte file: more than 1.2 times", up, len(data))
			}
			for i := 1; i < len(seen); i++ {
				if seen[i] <= seen[i-1] {
					t.Fatalf("progress went %v", seen)
				}
			}
			if len(seen) == 0 || seen[len(seen)-1] != int64(len(data)) {
				t.Fatalf("progress %v does not end at the file's size", seen)
			}
		})
	}
}

// A part cut off on its way may reach the engine after the client has
// asked where the upload stands: the engine, slow to take it up (its
// bytes held in the link's buffers meanwhile), answers the offset from
// before it. The client must not send that part again from there: each
// part goes up once, whatever order the engine takes the two requests in.
func TestUploadMedia_CutPartLandsLate(t *testing.T) {
	eng := enginetest.Start(t, enginetest.WithoutSeat())
	direct := client.New(eng.URL, eng.Token, nil)
	const size, cut = 5 << 20, 1 << 20
	data, sum, momentID, id := original(t, direct, size)
	px := faultproxy.New(t, slowAppends(t, eng.URL, 200*time.Millisecond), nil)
	px.CutUploadsAfter(cut)
	c := client.New(px.URL(), eng.Token, nil)
	m, created, err := c.UploadMedia(context.Background(), client.UploadMedia{
		ID: id, MomentID: momentID, Role: api.RoleOriginal, ContentType: "image/jpeg",
		From: bytes.NewReader(data), Size: int64(len(data)), SHA256: sum[:],
	})
	if err != nil {
		t.Fatal(err)
	}
	if !created || m.SHA256 != hexOf(sum[:]) {
		t.Fatalf("media %+v created %v", m, created)
	}
	if got := eng.Media(t, id); !bytes.Equal(got, data) {
		t.Fatal("the stored bytes are not the file")
	}
	up := px.BytesUp()
	t.Logf("%d bytes up for a %d-byte file (%.3fx)", up, len(data), float64(up)/float64(len(data)))
	if float64(up) > 1.1*float64(len(data)) {
		t.Fatalf("%d bytes went up for a %d-byte file: a part went up twice", up, len(data))
	}
}

// slowAppends serves a proxy to engineURL that takes up each append
// (PATCH) only once its body has come whole, or been cut off (no byte for
// 100 ms), and delay later, as an engine slow to get to a request whose
// bytes the kernel holds meanwhile; it hands the engine what came, even
// when the link it came by is gone, and the engine keeps it. Everything
// else passes at once.
func slowAppends(t *testing.T, engineURL string, delay time.Duration) string {
	t.Helper()
	target, err := url.Parse(engineURL)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(target)
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPatch {
			rp.ServeHTTP(w, r)
			return
		}
		rc := http.NewResponseController(w)
		var body []byte
		chunk := make([]byte, 64<<10)
		for {
			rc.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
			n, err := r.Body.Read(chunk)
			body = append(body, chunk[:n]...)
			if err != nil {
				break
			}
		}
		time.Sleep(delay)
		// Declared as long as it was: the engine sees a part cut short.
		out, err := http.NewRequestWithContext(context.Background(), r.Method, engineURL+r.URL.RequestURI(), bytes.NewReader(body))
		if err != nil {
			t.Error(err)
			return
		}
		out.Header = r.Header.Clone()
		out.ContentLength = r.ContentLength
		resp, err := tr.RoundTrip(out)
		if err != nil {
			return // cut short: its link is gone anyway
		}
		defer resp.Body.Close()
		maps.Copy(w.Header(), resp.Header)
		w.WriteHeader(resp.StatusCode)
		io.Copy(w, resp.Body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// The upload's place is the engine's: a new client (an app restarted)
// resumes where the last one stopped, from the file on disk.
func TestUploadMedia_ResumesAcrossClients(t *testing.T) {
	eng := enginetest.Start(t, enginetest.WithoutSeat())
	direct := client.New(eng.URL, eng.Token, nil)
	data, sum, momentID, id := original(t, direct, 12<<20)
	path := filepath.Join(t.TempDir(), "photo.jpg")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	first := client.UploadMedia{ID: id, MomentID: momentID, Role: api.RoleOriginal, Path: path, Size: int64(len(data)), SHA256: sum[:],
		Progress: func(held int64) {
			if held >= client.PartSize {
				cancel() // the app quits after the first part
			}
		}}
	if _, _, err := client.New(eng.URL, eng.Token, nil).UploadMedia(ctx, first); !errors.Is(err, context.Canceled) {
		t.Fatalf("the first run ended with %v, want it canceled", err)
	}
	var seen []int64
	second := first
	second.Progress = func(held int64) { seen = append(seen, held) }
	m, created, err := client.New(eng.URL, eng.Token, nil).UploadMedia(context.Background(), second)
	if err != nil || !created || m.Size != int64(len(data)) {
		t.Fatalf("the second run: %+v created %v, %v", m, created, err)
	}
	if len(seen) == 0 || seen[0] < client.PartSize {
		t.Fatalf("the second run's progress %v did not start where the first stopped (%d)", seen, client.PartSize)
	}
	if !bytes.Equal(eng.Media(t, id), data) {
		t.Fatal("the stored bytes are not the file")
	}
	// A third run finds the file stored and answers as PUT does.
	m, created, err = client.New(eng.URL, eng.Token, nil).UploadMedia(context.Background(), second)
	if err != nil || created || m.SHA256 != hexOf(sum[:]) {
		t.Fatalf("the third run: %+v created %v, %v", m, created, err)
	}
}

// putOnly is an engine of today's contract: the upload routes of the
// extension are hidden from its HTTP face.
type putOnly struct{ server.Service }

// An engine that offers no resumable uploads receives them by PUT.
func TestUploadMedia_OldEngineGetsPUT(t *testing.T) {
	eng := enginetest.Start(t, enginetest.WithoutSeat())
	h := server.New(putOnly{eng.Engine}, server.Options{Tokens: eng.Engine.Tokens()})
	var mu sync.Mutex
	methods := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		methods[r.Method]++
		mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	defer srv.Close()
	c := client.New(srv.URL, eng.Token, nil)
	data, sum, momentID, id := original(t, c, 3<<20)
	var held int64
	m, created, err := c.UploadMedia(context.Background(), client.UploadMedia{
		ID: id, MomentID: momentID, Role: api.RoleOriginal, From: bytes.NewReader(data), Size: int64(len(data)), SHA256: sum[:],
		Progress: func(n int64) { held = n },
	})
	if err != nil || !created || m.Size != int64(len(data)) || held != int64(len(data)) {
		t.Fatalf("upload to an engine of today's contract: %+v created %v held %d, %v", m, created, held, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if methods["PUT"] != 1 || methods["PATCH"] != 0 || methods["HEAD"] != 0 {
		t.Fatalf("requests %v, want one PUT and no HEAD or PATCH", methods)
	}
	if !bytes.Equal(eng.Media(t, id), data) {
		t.Fatal("the stored bytes are not the file")
	}
}

// A small copy under ResumableFrom takes today's PUT even from an engine
// offering the resumable path.
func TestUploadMedia_SmallCopyByPUT(t *testing.T) {
	eng := enginetest.Start(t, enginetest.WithoutSeat())
	h := eng.URL
	var mu sync.Mutex
	methods := map[string]int{}
	px := faultproxy.New(t, h, func(r *http.Request) faultproxy.Fault {
		mu.Lock()
		methods[r.Method]++
		mu.Unlock()
		return faultproxy.Fault{}
	})
	c := client.New(px.URL(), eng.Token, nil)
	data := make([]byte, 200_000)
	rand.Read(data)
	sum := sha256.Sum256(data)
	momentID, id := newID(), newID()
	if _, _, err := c.CreateMoment(context.Background(), api.CreateMomentRequest{ID: momentID, Kind: api.KindPhoto, CopyID: id}); err != nil {
		t.Fatal(err)
	}
	if _, created, err := c.UploadMedia(context.Background(), client.UploadMedia{ID: id, MomentID: momentID, Role: api.RoleCopy,
		From: bytes.NewReader(data), Size: int64(len(data)), SHA256: sum[:]}); err != nil || !created {
		t.Fatalf("created %v, %v", created, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if methods["PUT"] != 1 || methods["OPTIONS"] != 0 {
		t.Fatalf("requests %v, want one PUT", methods)
	}
}
