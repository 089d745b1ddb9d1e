package server_test

import (
	"bytes"
	"net/http"
	"strconv"
	"testing"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/enginetest"
)

// FuzzUploadPart sends arbitrary appends to an upload in progress: none
// is a 5xx, a refused one changes nothing stored, and the offset never
// goes back or past the declared length.
func FuzzUploadPart(f *testing.F) {
	f.Add("0", "?0", "", api.PartialUploadType, []byte("0123456789"))
	f.Add("0", "?1", "64", api.PartialUploadType, bytes.Repeat([]byte("a"), 64))
	f.Add("10", "?0", "63", api.PartialUploadType, []byte("x"))
	f.Add("-1", "?2", "1e3", "image/jpeg", []byte{})
	f.Add("99999999999999999999", "", "", api.PartialUploadType, []byte("y"))
	e := enginetest.Start(f, enginetest.WithoutSeat())
	m := createMoment(f, e, api.CreateMomentRequest{Kind: api.KindPhoto})
	data := bytes.Repeat([]byte("spark"), 13)[:64]
	id := ""
	f.Fuzz(func(t *testing.T, offset, complete, length, ctype string, body []byte) {
		for _, v := range []string{offset, complete, length, ctype} {
			for _, c := range []byte(v) {
				if c < 0x20 || c > 0x7e {
					t.Skip("a header value Go's client refuses to send")
				}
			}
		}
		if id == "" {
			id = newID()
			startUpload(t, e, id, m.ID, data, 0).want(t, http.StatusCreated, nil)
		}
		before, _ := offsetOf(t, e, id)
		a, err := send(e, "PATCH", uploadPath(id), body, "Expect", "100-continue", "Content-Type", ctype,
			"Upload-Offset", offset, "Upload-Complete", complete, "Upload-Length", length)
		if err != nil {
			t.Fatal(err)
		}
		if a.Status >= 500 {
			t.Fatalf("PATCH offset %q complete %q length %q type %q, %d bytes: %d %s", offset, complete, length, ctype, len(body), a.Status, a.Body)
		}
		h := call(t, e, "HEAD", uploadPath(id), nil)
		if h.Status == http.StatusNotFound {
			// A completed file that was not the declared one is dropped.
			if a.Status != http.StatusBadRequest {
				t.Fatalf("the upload vanished after a %d answer", a.Status)
			}
			id = ""
			return
		}
		after, err := strconv.ParseInt(h.Header.Get("Upload-Offset"), 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case after > int64(len(data)):
			t.Fatalf("offset %d past the declared %d", after, len(data))
		case a.Status >= 300 && after != before:
			t.Fatalf("a refused append (%d %s) moved the offset from %d to %d", a.Status, a.Body, before, after)
		case after < before:
			t.Fatalf("the offset went back from %d to %d", before, after)
		}
		if h.Header.Get("Upload-Complete") == "?1" {
			id = ""
		}
	})
}
