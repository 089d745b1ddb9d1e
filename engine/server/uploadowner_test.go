package server_test

import (
	"bytes"
	"io"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sparkfamily/spark/engine"
	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/enginetest"
	"github.com/sparkfamily/spark/engine/media"
)

// sameAsMissing checks that a, the answer about upload id, is the answer
// about missing, an id no upload ever had: same status, same code, same
// message but for the id, and no header that tells the upload's state.
func sameAsMissing(t *testing.T, what string, a, missing answer, id, missingID string) {
	t.Helper()
	if a.Status != missing.Status {
		t.Fatalf("%s of another member's upload: status %d, want %d as for none", what, a.Status, missing.Status)
	}
	if got, want := strings.ReplaceAll(string(a.Body), id, missingID), string(missing.Body); got != want {
		t.Fatalf("%s of another member's upload: %s\nwant, as for none: %s", what, got, want)
	}
	for _, h := range []string{"Upload-Offset", "Upload-Length", "Upload-Complete", "Location"} {
		if a.Header.Get(h) != missing.Header.Get(h) {
			t.Fatalf("%s of another member's upload tells %s: %q (for none: %q)", what, h, a.Header.Get(h), missing.Header.Get(h))
		}
	}
}

// TestUpload_OthersUpload (issue 32, item 2): another member's device can
// neither read the offset of, append to, nor cancel an upload: each
// answers exactly as for an upload that does not exist (it once read the
// offset, appended 1,000 bytes of garbage and deleted all the bytes). The
// upload's own member, and an admin, still can. Dad and kid are two
// members (a member is its token's name until tokens name theirs); two
// tokens of one member would both pass, the check comparing members.
func TestUpload_OthersUpload(t *testing.T) {
	f := newFamily(t, enginetest.WithoutSeat())
	m := f.moment(t, f.dad, "")
	data := randomBytes(t, 60_000)
	id, missingID := newID(), newID()
	f.asWith(t, f.dad, "POST", mediaPath(id, m.ID, "original"), data[:1000], "Content-Type", "image/jpeg",
		"Upload-Complete", "?0", "Upload-Length", strconv.Itoa(len(data)), "Repr-Digest", reprDigest(data)).want(t, http.StatusCreated, nil)

	garbage := randomBytes(t, 1000)
	patch := func(tok, id string) answer {
		return f.asWith(t, tok, "PATCH", uploadPath(id), garbage, "Content-Type", api.PartialUploadType,
			"Upload-Offset", "1000", "Upload-Complete", "?0", "Expect", "100-continue")
	}
	sameAsMissing(t, "HEAD", f.as(t, f.kid, "HEAD", uploadPath(id), nil), f.as(t, f.kid, "HEAD", uploadPath(missingID), nil), id, missingID)
	sameAsMissing(t, "PATCH", patch(f.kid, id), patch(f.kid, missingID), id, missingID)
	sameAsMissing(t, "DELETE", f.as(t, f.kid, "DELETE", uploadPath(id), nil), f.as(t, f.kid, "DELETE", uploadPath(missingID), nil), id, missingID)
	f.as(t, f.kid, "DELETE", uploadPath(id), nil).wantError(t, http.StatusNotFound, api.CodeUnknownUpload)

	// Nothing of the upload changed: dad's 1,000 bytes are there.
	for _, tok := range []string{f.dad, f.e.Token} {
		a := f.as(t, tok, "HEAD", uploadPath(id), nil)
		if a.Status != http.StatusNoContent || a.Header.Get("Upload-Offset") != "1000" {
			t.Fatalf("HEAD by the upload's member or an admin: %d, offset %q; want 204, 1000", a.Status, a.Header.Get("Upload-Offset"))
		}
	}
	f.asWith(t, f.dad, "PATCH", uploadPath(id), data[1000:], "Content-Type", api.PartialUploadType,
		"Upload-Offset", "1000", "Upload-Complete", "?1").want(t, http.StatusCreated, nil)
	if !bytes.Equal(f.e.Media(t, id), data) {
		t.Fatal("the stored bytes are not dad's file")
	}

	// An admin may cancel anyone's upload.
	id2 := newID()
	f.asWith(t, f.dad, "POST", mediaPath(id2, m.ID, "copy"), nil, "Content-Type", "image/jpeg",
		"Upload-Complete", "?0", "Upload-Length", "5000", "Repr-Digest", reprDigest(make([]byte, 5000))).want(t, http.StatusCreated, nil)
	f.as(t, f.e.Token, "DELETE", uploadPath(id2), nil).want(t, http.StatusNoContent, nil)
	f.as(t, f.dad, "HEAD", uploadPath(id2), nil).want(t, http.StatusNotFound, nil)

	// An upload onto dad's moment that is not his (an admin's here; a
	// squatter's made before uploads had members) gives way to his own
	// creation under the id, as if it did not exist.
	id3, mine := newID(), randomBytes(t, 3000)
	f.asWith(t, f.e.Token, "POST", mediaPath(id3, m.ID, "copy"), nil, "Content-Type", "image/jpeg",
		"Upload-Complete", "?0", "Upload-Length", "5000", "Repr-Digest", reprDigest(make([]byte, 5000))).want(t, http.StatusCreated, nil)
	f.asWith(t, f.dad, "POST", mediaPath(id3, m.ID, "copy"), mine, "Content-Type", "image/jpeg",
		"Upload-Complete", "?1", "Repr-Digest", reprDigest(mine)).want(t, http.StatusCreated, nil)
	if !bytes.Equal(f.e.Media(t, id3), mine) {
		t.Fatal("the stored copy is not dad's")
	}
}

// TestUpload_OthersHeadDoesNotPreempt (issue 32, item 2): an offset
// retrieval ends a request still appending to the upload, but only when
// it comes from the upload's own member. Another member's HEAD every
// half second, for longer than the preemption's grace, used to cut off an
// honest slow append (408 at 9 s of an upload that takes 21 s alone); it
// is now answered 404 at once, and the append goes on to the end.
func TestUpload_OthersHeadDoesNotPreempt(t *testing.T) {
	f := newFamily(t, enginetest.WithoutSeat())
	m := f.moment(t, f.dad, "")
	data := randomBytes(t, media.UploadSyncEvery+200_000)
	first := media.UploadSyncEvery + 100_000
	id := newID()
	f.asWith(t, f.dad, "POST", mediaPath(id, m.ID, "original"), nil, "Content-Type", "image/jpeg",
		"Upload-Complete", "?0", "Upload-Length", strconv.Itoa(len(data)), "Repr-Digest", reprDigest(data)).want(t, http.StatusCreated, nil)

	// Dad's append sends its body slowly: more than a stretch (which the
	// engine counts once it is durable), a pause, the rest.
	pr, pw := io.Pipe()
	done := make(chan answer, 1)
	go func() {
		req, _ := http.NewRequest("PATCH", f.e.URL+uploadPath(id), pr)
		req.Header.Set("Authorization", "Bearer "+f.dad)
		req.Header.Set("Content-Type", api.PartialUploadType)
		req.Header.Set("Upload-Offset", "0")
		req.Header.Set("Upload-Complete", "?1")
		req.ContentLength = int64(len(data))
		resp, err := f.e.Client().Do(req)
		if err != nil {
			done <- answer{Body: []byte(err.Error())}
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		done <- answer{Status: resp.StatusCode, Body: b}
	}()
	if _, err := pw.Write(data[:first]); err != nil {
		t.Fatal(err)
	}
	// Wait until the engine holds the first bytes: the append is under way.
	deadline := time.Now().Add(30 * time.Second)
	for {
		if heldOffset(t, f.e, id) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the engine never counted the append's first bytes")
		}
		time.Sleep(20 * time.Millisecond)
	}

	// Kid asks for the offset again and again, past the grace (2 s).
	for end := time.Now().Add(3 * time.Second); time.Now().Before(end); {
		a := f.as(t, f.kid, "HEAD", uploadPath(id), nil)
		if a.Status != http.StatusNotFound {
			t.Fatalf("HEAD of another member's upload: %d, want 404", a.Status)
		}
		time.Sleep(500 * time.Millisecond)
	}
	select {
	case a := <-done:
		t.Fatalf("another member's HEAD ended dad's append: %d %s", a.Status, a.Body)
	default:
	}
	if _, err := pw.Write(data[first:]); err != nil {
		t.Fatalf("dad's append was cut off: %v", err)
	}
	pw.Close()
	if a := <-done; a.Status != http.StatusCreated {
		t.Fatalf("dad's append: %d %s, want 201", a.Status, a.Body)
	}
	if !bytes.Equal(f.e.Media(t, id), data) {
		t.Fatal("the stored bytes are not dad's file")
	}
}

// heldOffset reads how many bytes of upload id the engine holds from the
// upload's durable state, without asking over HTTP (which, from the
// upload's member, would end the append under test).
func heldOffset(t *testing.T, e *enginetest.Engine, id string) int64 {
	t.Helper()
	s, err := media.OpenWith(filepath.Join(e.Dir, engine.MediaDir), media.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	u, err := s.LoadUpload(id)
	if err != nil {
		t.Fatal(err)
	}
	return u.Offset
}
