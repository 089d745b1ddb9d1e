package app

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/oklog/ulid/v2"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/client"
	"github.com/sparkfamily/spark/engine/enginetest"
)

// Issue 25, item 8: the window's media handler serves a file only as the
// image it claims to be, with nosniff, as the engine does: a copy the
// replica holds whose uploaded type is text/html is served as bytes
// (application/octet-stream), never as a page of the app's origin.
func TestMediaHandler_OnlyImageTypes(t *testing.T) {
	remote := enginetest.Start(t, enginetest.WithoutSeat())
	ctx := context.Background()
	cl := client.New(remote.URL, remote.Token, remote.Client())
	page := []byte("<html><script>alert(document.cookie)</script></html>")
	ids := map[string]string{} // content type -> media id
	for _, ct := range []string{"text/html", "image/svg+xml", "image/png"} {
		copyID := ulid.Make().String()
		mo, _, err := cl.CreateMoment(ctx, api.CreateMomentRequest{ID: ulid.Make().String(), Kind: api.KindPhoto, CopyID: copyID})
		if err != nil {
			t.Fatal(err)
		}
		req, _ := http.NewRequest(http.MethodPut, remote.URL+"/v1/media/"+copyID+"?moment="+mo.ID+"&role=copy", bytes.NewReader(append(page, ct...)))
		req.Header.Set("Authorization", "Bearer "+remote.Token)
		req.Header.Set("Content-Type", ct)
		resp, err := remote.Client().Do(req)
		if err != nil || resp.StatusCode != http.StatusCreated {
			t.Fatalf("upload %s: %v %v", ct, resp, err)
		}
		resp.Body.Close()
		ids[ct] = copyID
	}
	a, _ := startApp(t, t.TempDir(), nil)
	if _, err := a.Settings.UseRemote(remote.URL, remote.Token); err != nil {
		t.Fatal(err)
	}
	caughtUp(t, a, engineHead(t, remote))
	local := replicaCorpus{rep: a.state().rep}
	waitFor(t, "the replica to hold the small copies", func() bool {
		for _, id := range ids {
			f, _, ok := local.LocalMedia(ctx, id)
			if !ok {
				return false
			}
			f.Close()
		}
		return true
	})
	for ct, want := range map[string]string{"text/html": "application/octet-stream", "image/svg+xml": "application/octet-stream", "image/png": "image/png"} {
		rec := httptest.NewRecorder()
		a.MediaHandler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, mediaURL(ids[ct]), nil))
		if rec.Code != http.StatusOK || !strings.HasPrefix(rec.Body.String(), "<html>") {
			t.Fatalf("GET %s (%s): %d %q", mediaURL(ids[ct]), ct, rec.Code, rec.Body.String())
		}
		if got := rec.Header().Get("Content-Type"); got != want {
			t.Errorf("uploaded as %s, served as %q; want %q", ct, got, want)
		}
		if got := rec.Header().Get("X-Content-Type-Options"); got != "nosniff" {
			t.Errorf("uploaded as %s: X-Content-Type-Options %q; want nosniff", ct, got)
		}
	}
}
