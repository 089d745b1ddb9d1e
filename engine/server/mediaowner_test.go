package server_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"testing"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/enginetest"
	"github.com/sparkfamily/spark/engine/mirror"
)

// asWith sends a request with token tok and the given headers.
func (f family) asWith(t *testing.T, tok, method, path string, body any, header ...string) answer {
	t.Helper()
	return call(t, f.e, method, path, body, append([]string{"Authorization", "Bearer " + tok}, header...)...)
}

// watchCreate reads /v1/ops with token tok, as any device may, and returns
// the moment.create of moment id: the media ids its files will have,
// shown before the files are sent.
func (f family) watchCreate(t *testing.T, tok, id string) mirror.MomentCreate {
	t.Helper()
	var page api.OpsPage
	f.as(t, tok, "GET", "/v1/ops", nil).want(t, http.StatusOK, &page)
	for _, op := range page.Ops {
		var mc mirror.MomentCreate
		if op.Op == api.OpMomentCreate && json.Unmarshal(op.Data, &mc) == nil && mc.ID == id {
			return mc
		}
	}
	t.Fatalf("no moment.create of %s in /v1/ops", id)
	return mirror.MomentCreate{}
}

// TestMedia_OthersMoment (issue 32, item 1): a device of another member,
// which reads a photo's copy_id and original_id in /v1/ops before the
// files are sent, can neither PUT nor start a resumable upload of its
// own bytes under them (it once put its picture on 20 of 20 originals);
// the owner's own files then land (they used to get 409 media_conflict,
// and the outbox parked them for good). Dad and kid are two members: a
// member is its token's name until tokens name theirs. Two tokens of one
// member would both pass, since the check compares members.
func TestMedia_OthersMoment(t *testing.T) {
	f := newFamily(t, enginetest.WithoutSeat())
	copyID, originalID := newID(), newID()
	var mr api.MomentResponse
	f.as(t, f.dad, "POST", "/v1/moments", api.CreateMomentRequest{Kind: api.KindPhoto, CopyID: copyID, OriginalID: originalID}).
		want(t, http.StatusCreated, &mr)
	m := mr.Moment
	seen := f.watchCreate(t, f.kid, m.ID)
	if seen.CopyID != copyID || seen.OriginalID != originalID {
		t.Fatalf("/v1/ops shows copy %s original %s, want %s %s", seen.CopyID, seen.OriginalID, copyID, originalID)
	}

	theirs := randomBytes(t, 3000)
	f.asWith(t, f.kid, "PUT", mediaPath(seen.CopyID, m.ID, "copy"), theirs, "Content-Type", "image/jpeg", "Expect", "100-continue").
		wantError(t, http.StatusForbidden, api.CodeForbidden)
	f.asWith(t, f.kid, "POST", mediaPath(seen.OriginalID, m.ID, "original"), theirs, "Content-Type", "image/jpeg", "Expect", "100-continue",
		"Upload-Complete", "?1", "Upload-Length", strconv.Itoa(len(theirs)), "Repr-Digest", reprDigest(theirs)).
		wantError(t, http.StatusForbidden, api.CodeForbidden)
	f.asWith(t, f.kid, "POST", mediaPath(seen.OriginalID, m.ID, "original"), nil, "Content-Type", "image/jpeg",
		"Upload-Complete", "?0", "Upload-Length", strconv.Itoa(len(theirs)), "Repr-Digest", reprDigest(theirs)).
		wantError(t, http.StatusForbidden, api.CodeForbidden)
	if n := f.e.OpCount(t, api.OpMediaPut); n != 0 {
		t.Fatalf("the refused uploads logged %d media.put", n)
	}
	if a := call(t, f.e, "HEAD", uploadPath(seen.OriginalID), nil); a.Status != http.StatusNotFound {
		t.Fatalf("the refused creation left an upload: HEAD %d", a.Status)
	}

	// The owner's own files land, the copy whole and the original in parts.
	small, orig := randomBytes(t, 2000), randomBytes(t, 50_000)
	f.asWith(t, f.dad, "PUT", mediaPath(copyID, m.ID, "copy"), small, "Content-Type", "image/jpeg").want(t, http.StatusCreated, nil)
	f.asWith(t, f.dad, "POST", mediaPath(originalID, m.ID, "original"), orig[:20_000], "Content-Type", "image/heic",
		"Upload-Complete", "?0", "Upload-Length", strconv.Itoa(len(orig)), "Repr-Digest", reprDigest(orig)).want(t, http.StatusCreated, nil)
	f.asWith(t, f.dad, "PATCH", uploadPath(originalID), orig[20_000:], "Content-Type", api.PartialUploadType,
		"Upload-Offset", "20000", "Upload-Complete", "?1").want(t, http.StatusCreated, nil)
	if !bytes.Equal(f.e.Media(t, copyID), small) || !bytes.Equal(f.e.Media(t, originalID), orig) {
		t.Fatal("the stored files are not the owner's")
	}

	// A deleted moment still takes its own member's files, and no one
	// else's; an admin may upload onto any moment.
	other := f.moment(t, f.dad, "a note with a picture")
	f.as(t, f.dad, "DELETE", "/v1/moments/"+other.ID, nil).want(t, http.StatusOK, nil)
	f.asWith(t, f.kid, "PUT", mediaPath(newID(), other.ID, "copy"), theirs, "Content-Type", "image/png", "Expect", "100-continue").
		wantError(t, http.StatusForbidden, api.CodeForbidden)
	f.asWith(t, f.e.Token, "PUT", mediaPath(newID(), other.ID, "copy"), theirs, "Content-Type", "image/png").want(t, http.StatusCreated, nil)
}

// TestMedia_OnlyPhotoTypes (issue 32, item 1): a copy or an original is
// one of the photo types Spark's clients send (the outbox: JPEG, PNG,
// WebP, HEIC), or bytes with no type (application/octet-stream, as the
// contract's PUT without Content-Type always was, served as bytes); a
// device once attached a text/html original to a moment. Refused: 415
// bad_content_type, before the body is read, nothing written.
func TestMedia_OnlyPhotoTypes(t *testing.T) {
	f := newFamily(t, enginetest.WithoutSeat())
	body := []byte("<html><script>alert(document.cookie)</script></html>")
	for _, tc := range []struct {
		ct   string
		want int
	}{
		{"image/jpeg", http.StatusCreated},
		{"image/png", http.StatusCreated},
		{"image/webp", http.StatusCreated},
		{"image/heic", http.StatusCreated},
		{"IMAGE/JPEG; q=1", http.StatusCreated},
		{"application/octet-stream", http.StatusCreated},
		{"", http.StatusCreated},
		{"text/html", http.StatusUnsupportedMediaType},
		{"text/html; charset=utf-8", http.StatusUnsupportedMediaType},
		{"image/svg+xml", http.StatusUnsupportedMediaType},
		{"application/javascript", http.StatusUnsupportedMediaType},
		{"image/", http.StatusUnsupportedMediaType},
		{"not a type", http.StatusUnsupportedMediaType},
	} {
		t.Run(tc.ct, func(t *testing.T) {
			m := f.moment(t, f.dad, "")
			put := f.asWith(t, f.dad, "PUT", mediaPath(newID(), m.ID, "original"), body, "Content-Type", tc.ct, "Expect", "100-continue")
			post := f.asWith(t, f.dad, "POST", mediaPath(newID(), m.ID, "copy"), body, "Content-Type", tc.ct, "Expect", "100-continue",
				"Upload-Complete", "?1", "Repr-Digest", reprDigest(body))
			for _, a := range []answer{put, post} {
				if tc.want == http.StatusCreated {
					a.want(t, http.StatusCreated, nil)
					continue
				}
				e := a.wantError(t, tc.want, api.CodeBadContentType)
				t.Log(e.Message)
			}
		})
	}
	// Every refusal wrote nothing: one media.put for each accepted type,
	// a PUT and a resumable upload each.
	if got, want := f.e.OpCount(t, api.OpMediaPut), 2*7; got != want {
		t.Fatalf("%d media.put, want %d", got, want)
	}
}
