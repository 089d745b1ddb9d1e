package app

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/oklog/ulid/v2"
	"github.com/sparkfamily/spark/app/view"
	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/client"
	"github.com/sparkfamily/spark/engine/enginetest"
)

// Issue 25, item 8: the window's media handler serves a file only as the
// image it claims to be, with nosniff, as the engine does: a copy the
// replica holds that is a page sent as bytes is served as bytes
// (application/octet-stream), never as a page of the app's origin. (The
// engine now refuses a copy sent as text/html or SVG; one an older engine
// took is served as bytes by server.ServedType, which the handler uses.)
func TestMediaHandler_OnlyImageTypes(t *testing.T) {
	remote := enginetest.Start(t, enginetest.WithoutSeat())
	ctx := context.Background()
	cl := client.New(remote.URL, remote.Token, remote.Client())
	page := []byte("<html><script>alert(document.cookie)</script></html>")
	ids := map[string]string{} // content type -> media id
	for _, ct := range []string{"application/octet-stream", "image/png"} {
		ids[ct] = uploadCopy(t, remote, cl, append(page, ct...), ct)
	}
	a, _ := startApp(t, t.TempDir(), nil)
	if _, err := a.Settings.UseRemote(remote.URL, remote.Token); err != nil {
		t.Fatal(err)
	}
	caughtUp(t, a, engineHead(t, remote))
	local := view.ReplicaCorpus{Replica: a.state().rep}
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
	for ct, want := range map[string]string{"application/octet-stream": "application/octet-stream", "image/png": "image/png"} {
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

// uploadCopy makes a photo moment on remote whose small copy is body,
// uploaded as type ct, and returns the copy's media id.
func uploadCopy(tb testing.TB, remote *enginetest.Engine, cl *client.Client, body []byte, ct string) string {
	tb.Helper()
	copyID := ulid.Make().String()
	mo, _, err := cl.CreateMoment(context.Background(), api.CreateMomentRequest{ID: ulid.Make().String(), Kind: api.KindPhoto, CopyID: copyID})
	if err != nil {
		tb.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodPut, remote.URL+"/v1/media/"+copyID+"?moment="+mo.ID+"&role=copy", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+remote.Token)
	req.Header.Set("Content-Type", ct)
	resp, err := remote.Client().Do(req)
	if err != nil || resp.StatusCode != http.StatusCreated {
		tb.Fatalf("upload %s: %v %v", ct, resp, err)
	}
	resp.Body.Close()
	return copyID
}

// bigJPEG returns a w by h JPEG, as large as a small copy may be.
func bigJPEG(tb testing.TB, w, h int) []byte {
	tb.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.RGBA{uint8(x), uint8(y), uint8(x + y), 255})
		}
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 80}); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}

// Issue 23: a tile of the window's lists is a picture of tileEdge
// pixels, not the 1,600-pixel small copy, whichever URL it comes from;
// what is no larger picture is served as it is.
func TestMediaHandler_Tile(t *testing.T) {
	remote := enginetest.Start(t, enginetest.WithoutSeat())
	cl := client.New(remote.URL, remote.Token, remote.Client())
	big := bigJPEG(t, 1600, 1200)
	corrupt := append([]byte(nil), big[:len(big)/3]...)
	bigID := uploadCopy(t, remote, cl, big, "image/jpeg")
	corruptID := uploadCopy(t, remote, cl, corrupt, "image/jpeg")
	small := bigJPEG(t, 320, 240)
	smallID := uploadCopy(t, remote, cl, small, "image/jpeg")
	// A "small copy" of 20 megapixels (a peer may send anything): more
	// than a tile is made from, so it is served as it is.
	var huge bytes.Buffer
	if err := png.Encode(&huge, image.NewGray(image.Rect(0, 0, 4500, 4500))); err != nil {
		t.Fatal(err)
	}
	hugeID := uploadCopy(t, remote, cl, huge.Bytes(), "image/png")

	a, _ := startApp(t, t.TempDir(), nil)
	if _, err := a.Settings.UseRemote(remote.URL, remote.Token); err != nil {
		t.Fatal(err)
	}
	photoPath := filepath.Join(t.TempDir(), "big.jpg")
	if err := os.WriteFile(photoPath, big, 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := a.Capture.Files("b", []string{photoPath})
	if err != nil || res[0].Error != nil {
		t.Fatalf("Capture.Files() = %+v, %v", res, err)
	}

	get := func(method, u string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		a.MediaHandler().ServeHTTP(rec, httptest.NewRequest(method, u, nil))
		return rec
	}
	tile := "?size=" + ImageSizeTile
	for _, tt := range []struct {
		name, url string
		want      image.Point // zero: served as the copy is
		same      []byte
	}{
		{"a copy", mediaURL(bigID), image.Pt(1600, 1200), big},
		{"its tile", mediaURL(bigID) + tile, image.Pt(tileEdge, 480), nil},
		{"the outbox copy's tile", res[0].Thumb + tile, image.Pt(tileEdge, 480), nil},
		{"a small copy's tile is the copy", mediaURL(smallID) + tile, image.Pt(320, 240), small},
		{"a corrupt copy's tile is the copy", mediaURL(corruptID) + tile, image.Point{}, corrupt},
		{"a 20-megapixel copy's tile is the copy", mediaURL(hugeID) + tile, image.Point{}, huge.Bytes()},
	} {
		rec := get(http.MethodGet, tt.url)
		want := "image/jpeg"
		if tt.url == mediaURL(hugeID)+tile {
			want = "image/png"
		}
		if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != want || rec.Header().Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: GET %s = %d %v", tt.name, tt.url, rec.Code, rec.Header())
			continue
		}
		if tt.same != nil && !bytes.Equal(rec.Body.Bytes(), tt.same) {
			t.Errorf("%s: GET %s gave %d bytes, not the copy's %d", tt.name, tt.url, rec.Body.Len(), len(tt.same))
		}
		if tt.want == (image.Point{}) {
			continue
		}
		cfg, err := jpeg.DecodeConfig(bytes.NewReader(rec.Body.Bytes()))
		if err != nil || image.Pt(cfg.Width, cfg.Height) != tt.want {
			t.Errorf("%s: GET %s is %dx%d (%v), want %v", tt.name, tt.url, cfg.Width, cfg.Height, err, tt.want)
		}
		if strings.HasPrefix(tt.url, mediaPrefix) && !strings.Contains(rec.Header().Get("Cache-Control"), "immutable") {
			t.Errorf("%s: Cache-Control %q; a media id names fixed bytes", tt.name, rec.Header().Get("Cache-Control"))
		}
	}

	// HEAD and a range are the tile's own.
	whole := get(http.MethodGet, mediaURL(bigID)+tile).Body.Bytes()
	if rec := get(http.MethodHead, mediaURL(bigID)+tile); rec.Code != http.StatusOK || rec.Body.Len() != 0 || rec.Header().Get("Content-Length") != strconv.Itoa(len(whole)) {
		t.Errorf("HEAD a tile = %d, %d bytes, Content-Length %q; want 200, none, %d", rec.Code, rec.Body.Len(), rec.Header().Get("Content-Length"), len(whole))
	}
	req := httptest.NewRequest(http.MethodGet, mediaURL(bigID)+tile, nil)
	req.Header.Set("Range", "bytes=0-9")
	rec := httptest.NewRecorder()
	a.MediaHandler().ServeHTTP(rec, req)
	if body, _ := io.ReadAll(rec.Body); rec.Code != http.StatusPartialContent || !bytes.Equal(body, whole[:10]) {
		t.Errorf("the first 10 bytes of a tile = %d %x; want 206 %x", rec.Code, body, whole[:10])
	}

	for _, tt := range []struct {
		url  string
		code int
	}{
		{mediaURL(ulid.Make().String()) + tile, http.StatusNotFound},
		{mediaURL(bigID) + "?size=huge", http.StatusBadRequest},
	} {
		if rec := get(http.MethodGet, tt.url); rec.Code != tt.code {
			t.Errorf("GET %s = %d, want %d", tt.url, rec.Code, tt.code)
		}
	}
}
