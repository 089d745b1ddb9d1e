package server_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptrace"
	"net/textproto"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/sparkfamily/spark/engine"
	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/enginetest"
)

// reprDigest is the Repr-Digest of a whole file.
func reprDigest(b []byte) string { return digestHeader(b) }

func uploadPath(id string) string { return api.UploadsPath + id }

// startUpload creates the upload of data as id with its first part.
func startUpload(t *testing.T, e *enginetest.Engine, id, momentID string, data []byte, first int) answer {
	t.Helper()
	return call(t, e, "POST", mediaPath(id, momentID, "original"), data[:first],
		"Expect", "100-continue", "Content-Type", "image/jpeg", "Upload-Complete", "?0",
		"Upload-Length", strconv.Itoa(len(data)), "Repr-Digest", reprDigest(data))
}

func appendPart(t *testing.T, e *enginetest.Engine, id string, offset int64, part []byte, complete bool, extra ...string) answer {
	t.Helper()
	c := "?0"
	if complete {
		c = "?1"
	}
	h := append([]string{"Expect", "100-continue", "Content-Type", api.PartialUploadType, "Upload-Offset", strconv.FormatInt(offset, 10), "Upload-Complete", c}, extra...)
	return call(t, e, "PATCH", uploadPath(id), part, h...)
}

// offsetOf asks for the upload's offset and checks it is want.
func offsetOf(t *testing.T, e *enginetest.Engine, id string) (int64, bool) {
	t.Helper()
	a := call(t, e, "HEAD", uploadPath(id), nil)
	if a.Status != http.StatusNoContent {
		t.Fatalf("HEAD %s: status %d, want 204", uploadPath(id), a.Status)
	}
	if a.Header.Get("Cache-Control") != "no-store" || a.Header.Get("Upload-Limit") == "" {
		t.Fatalf("HEAD answer lacks Cache-Control: no-store or Upload-Limit: %v", a.Header)
	}
	n, err := strconv.ParseInt(a.Header.Get("Upload-Offset"), 10, 64)
	if err != nil {
		t.Fatalf("Upload-Offset %q: %v", a.Header.Get("Upload-Offset"), err)
	}
	return n, a.Header.Get("Upload-Complete") == "?1"
}

func wantOffset(t *testing.T, e *enginetest.Engine, id string, want int64) {
	t.Helper()
	if got, complete := offsetOf(t, e, id); got != want || complete {
		t.Fatalf("offset %d (complete %v), want %d, incomplete", got, complete, want)
	}
}

func TestUploadOptions(t *testing.T) {
	e := enginetest.Start(t, enginetest.WithoutSeat())
	a := call(t, e, "OPTIONS", "/v1/media/"+newID(), nil)
	if a.Status != http.StatusNoContent || a.Header.Get("Accept-Patch") != api.PartialUploadType ||
		a.Header.Get("Upload-Limit") != "max-size=268435456, max-age=86400" {
		t.Fatalf("OPTIONS: %d %v", a.Status, a.Header)
	}
}

func TestUploadResumable(t *testing.T) {
	e := enginetest.Start(t, enginetest.WithoutSeat())
	m := createMoment(t, e, api.CreateMomentRequest{Kind: api.KindPhoto})
	data := randomBytes(t, 300_000)
	id := newID()

	a := startUpload(t, e, id, m.ID, data, 100_000)
	if a.Status != http.StatusCreated || a.Header.Get("Location") != uploadPath(id) || a.Header.Get("Upload-Offset") != "100000" || a.Header.Get("Upload-Complete") != "?0" {
		t.Fatalf("creation: %d %v %s", a.Status, a.Header, a.Body)
	}
	wantOffset(t, e, id, 100_000)

	// Each refused request changes nothing stored.
	for _, tc := range []struct {
		name   string
		offset int64
		part   []byte
		done   bool
		extra  []string
		status int
		code   string
	}{
		{"offset behind", 50_000, data[50_000:60_000], false, nil, 409, api.CodeUploadOffsetMismatch},
		{"offset ahead", 200_000, data[200_000:], true, nil, 409, api.CodeUploadOffsetMismatch},
		{"empty part", 100_000, nil, false, nil, 400, api.CodeEmptyPart},
		{"past the length", 100_000, append(bytes.Clone(data[100_000:]), 1), false, nil, 400, api.CodeUploadLength},
		{"complete short", 100_000, data[100_000:200_000], true, nil, 400, api.CodeUploadLength},
		{"other length", 100_000, data[100_000:200_000], false, []string{"Upload-Length", "299999"}, 400, api.CodeUploadLength},
		{"not a partial upload", 100_000, data[100_000:200_000], false, []string{"Content-Type", "image/jpeg"}, 400, api.CodeBadUpload},
		{"bad offset", -1, data[100_000:200_000], false, []string{"Upload-Offset", "1e5"}, 400, api.CodeBadUpload},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := appendPart(t, e, id, tc.offset, tc.part, tc.done, tc.extra...)
			a.wantError(t, tc.status, tc.code)
			if tc.code == api.CodeUploadOffsetMismatch && a.Header.Get("Upload-Offset") != "100000" {
				t.Fatalf("409 carries Upload-Offset %q, want 100000", a.Header.Get("Upload-Offset"))
			}
			wantOffset(t, e, id, 100_000)
		})
	}
	// A second creation of the same file is told where the first stands.
	a = startUpload(t, e, id, m.ID, data, 1000)
	a.wantError(t, 409, api.CodeUploadOffsetMismatch)
	if a.Header.Get("Upload-Offset") != "100000" {
		t.Fatalf("creation again: Upload-Offset %q, want 100000", a.Header.Get("Upload-Offset"))
	}

	appendPart(t, e, id, 100_000, data[100_000:200_000], false).want(t, http.StatusNoContent, nil)
	var mr api.MediaResponse
	a = appendPart(t, e, id, 200_000, data[200_000:], true)
	a.want(t, http.StatusCreated, &mr)
	sum := sha256.Sum256(data)
	if !mr.Created || mr.Media.SHA256 != hex.EncodeToString(sum[:]) || mr.Media.Size != int64(len(data)) || mr.Media.Role != "original" || a.Header.Get("Upload-Complete") != "?1" {
		t.Fatalf("completion: %+v created %v, header %v", mr.Media, mr.Created, a.Header)
	}
	if got := e.Media(t, id); !bytes.Equal(got, data) {
		t.Fatal("the stored bytes are not the file")
	}
	if n := e.OpCount(t, api.OpMediaPut); n != 1 {
		t.Fatalf("%d media.put ops, want 1", n)
	}
	if off, complete := offsetOf(t, e, id); off != int64(len(data)) || !complete {
		t.Fatalf("HEAD after completion: %d complete %v", off, complete)
	}
	if _, err := os.Stat(filepath.Join(e.Dir, engine.MediaDir, "uploads", id)); !os.IsNotExist(err) {
		t.Fatalf("the finished upload's directory is left: %v", err)
	}

	t.Run("PartAfterCompletion", func(t *testing.T) {
		appendPart(t, e, id, int64(len(data)), []byte("more"), true).wantError(t, 400, api.CodeUploadLength)
	})
	t.Run("CompletedAnswersAsToday", func(t *testing.T) {
		var again api.MediaResponse
		startUpload(t, e, id, m.ID, data, len(data)).want(t, http.StatusOK, &again)
		if again.Created || again.Media.SHA256 != mr.Media.SHA256 {
			t.Fatalf("creation of a stored file: %+v created %v", again.Media, again.Created)
		}
		other := bytes.Clone(data)
		other[0] ^= 1
		startUpload(t, e, id, m.ID, other, 10).wantError(t, 409, api.CodeMediaConflict)
		var put api.MediaResponse
		call(t, e, "PUT", mediaPath(id, m.ID, "original"), data, "Content-Type", "image/jpeg").want(t, http.StatusOK, &put)
	})
	t.Run("UnknownUpload", func(t *testing.T) {
		if a := call(t, e, "HEAD", uploadPath(newID()), nil); a.Status != http.StatusNotFound {
			t.Fatalf("HEAD of an unknown upload: %d", a.Status)
		}
		appendPart(t, e, newID(), 0, []byte("x"), true).wantError(t, 404, api.CodeUnknownUpload)
	})
}

// A file whose bytes do not hash to the declared SHA-256 is not stored,
// and its upload starts again from nothing.
func TestUploadDigestMismatch(t *testing.T) {
	e := enginetest.Start(t, enginetest.WithoutSeat())
	m := createMoment(t, e, api.CreateMomentRequest{Kind: api.KindPhoto})
	data := randomBytes(t, 50_000)
	id := newID()
	startUpload(t, e, id, m.ID, data, 20_000).want(t, http.StatusCreated, nil)
	bad := bytes.Clone(data[20_000:])
	bad[7] ^= 0xff
	appendPart(t, e, id, 20_000, bad, true).wantError(t, 400, api.CodeDigestMismatch)
	if a := call(t, e, "HEAD", uploadPath(id), nil); a.Status != http.StatusNotFound {
		t.Fatalf("HEAD after a damaged upload: %d, want 404", a.Status)
	}
	if n := e.OpCount(t, api.OpMediaPut); n != 0 {
		t.Fatalf("%d media.put ops, want 0", n)
	}
}

// An upload survives a restart of the engine, and one with no progress
// for 24 hours is removed with its bytes.
func TestUploadRestartAndExpiry(t *testing.T) {
	dir := t.TempDir()
	var mu sync.Mutex
	now := time.Now()
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	opt := enginetest.WithConfig(func(c *engine.Config) { c.Now = clock })
	e := enginetest.Start(t, enginetest.WithoutSeat(), enginetest.WithDir(dir), opt)
	m := createMoment(t, e, api.CreateMomentRequest{Kind: api.KindPhoto})
	data := randomBytes(t, 80_000)
	id, stale := newID(), newID()
	startUpload(t, e, id, m.ID, data, 30_000).want(t, http.StatusCreated, nil)
	startUpload(t, e, stale, m.ID, randomBytes(t, 1000), 10).want(t, http.StatusCreated, nil)
	e.Close()

	e = enginetest.Start(t, enginetest.WithoutSeat(), enginetest.WithDir(dir), opt)
	wantOffset(t, e, id, 30_000)
	mu.Lock()
	now = now.Add(23 * time.Hour)
	mu.Unlock()
	appendPart(t, e, id, 30_000, data[30_000:60_000], false).want(t, http.StatusNoContent, nil)
	mu.Lock()
	now = now.Add(2 * time.Hour)
	mu.Unlock()
	if a := call(t, e, "HEAD", uploadPath(stale), nil); a.Status != http.StatusNotFound {
		t.Fatalf("HEAD of an upload 25 hours without progress: %d, want 404", a.Status)
	}
	if _, err := os.Stat(filepath.Join(dir, engine.MediaDir, "uploads", stale)); !os.IsNotExist(err) {
		t.Fatalf("the expired upload's bytes are left: %v", err)
	}
	wantOffset(t, e, id, 60_000)
	appendPart(t, e, id, 60_000, data[60_000:], true).want(t, http.StatusCreated, nil)
	if !bytes.Equal(e.Media(t, id), data) {
		t.Fatal("the stored bytes are not the file")
	}

	// An upload left alone is removed when the engine next starts after
	// its 24 hours, asked for or not.
	left := newID()
	m2 := createMoment(t, e, api.CreateMomentRequest{Kind: api.KindPhoto})
	startUpload(t, e, left, m2.ID, randomBytes(t, 1000), 10).want(t, http.StatusCreated, nil)
	e.Close()
	mu.Lock()
	now = now.Add(25 * time.Hour)
	mu.Unlock()
	enginetest.Start(t, enginetest.WithoutSeat(), enginetest.WithDir(dir), opt)
	if _, err := os.Stat(filepath.Join(dir, engine.MediaDir, "uploads", left)); !os.IsNotExist(err) {
		t.Fatalf("an upload 25 hours without progress is left after a restart: %v", err)
	}
}

// One token's uploads in progress are capped.
func TestUploadCap(t *testing.T) {
	e := enginetest.Start(t, enginetest.WithoutSeat())
	m := createMoment(t, e, api.CreateMomentRequest{Kind: api.KindPhoto})
	fake := make([]byte, 32)
	declare := func(n int64) answer {
		return call(t, e, "POST", mediaPath(newID(), m.ID, "original"), nil, "Upload-Complete", "?0",
			"Upload-Length", strconv.FormatInt(n, 10), "Repr-Digest", "sha-256=:"+base64.StdEncoding.EncodeToString(fake)+":")
	}
	for range engine.UploadCapPerMember / (256 << 20) {
		declare(256<<20).want(t, http.StatusCreated, nil)
	}
	declare(1).wantError(t, http.StatusInsufficientStorage, api.CodeUploadCap)
}

// Two requests appending to one upload at once: the second is refused and
// changes nothing; an offset retrieval ends the first and counts what it
// had received.
func TestUploadBusy(t *testing.T) {
	e := enginetest.Start(t, enginetest.WithoutSeat())
	m := createMoment(t, e, api.CreateMomentRequest{Kind: api.KindPhoto})
	data := randomBytes(t, 200_000)
	id := newID()
	startUpload(t, e, id, m.ID, data, 1000).want(t, http.StatusCreated, nil)

	// The first append sends part of its body and then waits, holding the
	// upload. A probe (an empty append) that reaches the engine before it
	// holds the upload itself for a moment, and the first append, meeting
	// it, is refused as busy: that is the rule under test, the other way
	// round, so the first append is then sent again.
	var pw *io.PipeWriter
	var done chan answer
	first := func() {
		var pr *io.PipeReader
		pr, pw = io.Pipe()
		done = make(chan answer, 1)
		go func(done chan<- answer) {
			req, _ := http.NewRequest("PATCH", e.URL+uploadPath(id), pr)
			req.Header.Set("Authorization", "Bearer "+e.Token)
			req.Header.Set("Content-Type", api.PartialUploadType)
			req.Header.Set("Upload-Offset", "1000")
			req.Header.Set("Upload-Complete", "?1")
			req.ContentLength = int64(len(data) - 1000)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				done <- answer{Body: []byte(err.Error())}
				return
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			done <- answer{Status: resp.StatusCode, Body: body}
		}(done)
		// An error here is the request already ended (its answer comes
		// on done).
		pw.Write(data[1000:50_000])
	}
	first()
	deadline := time.Now().Add(30 * time.Second)
	for {
		a := appendPart(t, e, id, 1000, nil, false)
		if a.Status == http.StatusConflict {
			a.wantError(t, 409, api.CodeUploadBusy)
			break
		}
		select {
		case f := <-done:
			if f.Status != http.StatusConflict {
				t.Fatalf("the first append ended before a second could meet it: %d %s", f.Status, f.Body)
			}
			pw.Close()
			first() // it met a probe: send it again
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("a second append while one is in progress: %d %s", a.Status, a.Body)
		}
		time.Sleep(10 * time.Millisecond)
	}
	// The retrieval ends the first append, which keeps what it had read
	// (none, or some of the 49,000 bytes sent).
	off, _ := offsetOf(t, e, id)
	if off < 1000 || off > 50_000 {
		t.Fatalf("offset after preempting the first append: %d, want 1000 to 50000", off)
	}
	pw.CloseWithError(io.ErrClosedPipe)
	if a := <-done; a.Status == http.StatusCreated {
		t.Fatal("the preempted append completed the upload")
	}
	wantOffset(t, e, id, off)
	appendPart(t, e, id, off, data[off:], true).want(t, http.StatusCreated, nil)
	if !bytes.Equal(e.Media(t, id), data) {
		t.Fatal("the stored bytes are not the file")
	}
}

// The creation announces the upload's place in a 104 before the body is
// read, so a client cut off in the middle of its first request can resume.
func TestUpload104(t *testing.T) {
	e := enginetest.Start(t, enginetest.WithoutSeat())
	m := createMoment(t, e, api.CreateMomentRequest{Kind: api.KindPhoto})
	data := randomBytes(t, 70_000)
	id := newID()
	var got []string
	trace := &httptrace.ClientTrace{Got1xxResponse: func(code int, h textproto.MIMEHeader) error {
		got = append(got, strconv.Itoa(code)+" "+h.Get("Location")+" "+h.Get("Upload-Limit"))
		return nil
	}}
	req, err := http.NewRequestWithContext(httptrace.WithClientTrace(t.Context(), trace), "POST", e.URL+mediaPath(id, m.ID, "original"), bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+e.Token)
	req.Header.Set("Upload-Complete", "?1")
	req.Header.Set("Repr-Digest", reprDigest(data))
	resp, err := e.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	want := "104 " + uploadPath(id) + " max-size=268435456, max-age=86400"
	if resp.StatusCode != http.StatusCreated || len(got) != 1 || got[0] != want || resp.Header.Get("Upload-Complete") != "?1" {
		t.Fatalf("status %d, interim answers %q (want [%q]), Upload-Complete %q", resp.StatusCode, got, want, resp.Header.Get("Upload-Complete"))
	}
	if !bytes.Equal(e.Media(t, id), data) {
		t.Fatal("the stored bytes are not the file")
	}
}
