package app

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/sparkfamily/spark/app/view"
	"github.com/sparkfamily/spark/engine/server"
)

// URL prefixes the webview loads images from; MediaHandler serves them.
// The views the window gets name them with view.MediaURL and
// view.OutboxCopyURL.
const (
	mediaPrefix      = view.MediaPrefix
	outboxCopyPrefix = view.OutboxCopyPrefix
)

func mediaURL(id string) string { return view.MediaURL(id) }

func outboxCopyURL(entryID string) string { return view.OutboxCopyURL(entryID) }

// MediaHandler serves the images the UI shows with plain <img src>, so they
// load lazily and the browser caches them: /media/<id> is the replica's
// small copy when Spark uses a family engine and this computer holds it,
// else it is fetched from the current engine with the app's token (the
// webview never sees the token),
// /outbox-copy/<entry id> is the small copy kept in the outbox (or, once
// delivered and removed from there, the engine's). main.go
// gives it to Wails' asset server, which calls it for every path that is
// not a file of the built UI. Either URL with ?size=tile (ImageSizeTile)
// is the same picture at the size of a tile (tile.go).
func (a *App) MediaHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var serve func(http.ResponseWriter, *http.Request)
		st := a.state()
		switch {
		case r.Method != http.MethodGet && r.Method != http.MethodHead:
			http.Error(w, "only GET", http.StatusMethodNotAllowed)
			return
		case strings.HasPrefix(r.URL.Path, mediaPrefix):
			id := strings.TrimPrefix(r.URL.Path, mediaPrefix)
			serve = func(w http.ResponseWriter, r *http.Request) { a.serveMedia(w, r, st, id) }
		case strings.HasPrefix(r.URL.Path, outboxCopyPrefix):
			entryID := strings.TrimPrefix(r.URL.Path, outboxCopyPrefix)
			serve = func(w http.ResponseWriter, r *http.Request) { a.serveOutboxCopy(w, r, st, entryID) }
		default:
			http.NotFound(w, r)
			return
		}
		switch size := r.URL.Query().Get("size"); size {
		case "":
			serve(w, r)
		case ImageSizeTile:
			serveTile(w, r, st.tiles, serve)
		default:
			http.Error(w, "unknown picture size "+strconv.Quote(size), http.StatusBadRequest)
		}
	})
}

// serveMedia serves media file id: from this computer when it holds it
// (with a family engine, the replica's cached small copy), else from the
// engine (an original is fetched only when shown). It reads only st, the
// one state the request began with, so a switch meanwhile never sends one
// engine's token to the other.
func (a *App) serveMedia(w http.ResponseWriter, r *http.Request, st *state, id string) {
	src, err := st.corpus()
	if err != nil {
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	// Whatever the upload claimed, a file is served only as an image (or
	// as bytes), never sniffed: the engine's rule (server.ServedType). The
	// bytes here come from the engine or its replica, which any device
	// with a token can fill.
	w.Header().Set("X-Content-Type-Options", "nosniff")
	server.LimitRanges(r)
	if f, ct, ok := src.LocalMedia(r.Context(), id); ok {
		defer f.Close()
		w.Header().Set("Content-Type", server.ServedType(ct))
		w.Header().Set("Cache-Control", "private, max-age=31536000, immutable")
		http.ServeContent(w, r, "", time.Time{}, f)
		return
	}
	cl, err := st.client()
	if err != nil {
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	req, err := http.NewRequestWithContext(r.Context(), r.Method, cl.MediaURL(id), nil)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	req.Header.Set("Authorization", "Bearer "+st.token())
	for _, h := range []string{"Range", "If-None-Match", "If-Range"} {
		if v := r.Header.Get(h); v != "" {
			req.Header.Set(h, v)
		}
	}
	resp, err := a.hc.Do(req)
	if err != nil {
		http.Error(w, "the engine can't be reached", http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for _, h := range []string{"Content-Length", "Content-Range", "Accept-Ranges", "ETag", "Last-Modified"} {
		if v := resp.Header.Get(h); v != "" {
			w.Header().Set(h, v)
		}
	}
	// A multipart answer of several ranges keeps its type; anything else is
	// an image or bytes, whatever the engine says.
	ct := resp.Header.Get("Content-Type")
	if resp.StatusCode != http.StatusPartialContent || !strings.HasPrefix(ct, "multipart/byteranges;") {
		ct = server.ServedType(ct)
	}
	w.Header().Set("Content-Type", ct)
	if resp.StatusCode == http.StatusOK {
		// A media id names fixed bytes (the engine refuses different bytes
		// under the same id), so the webview may keep it for good.
		w.Header().Set("Cache-Control", "private, max-age=31536000, immutable")
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = io.Copy(w, resp.Body)
}

func (a *App) serveOutboxCopy(w http.ResponseWriter, r *http.Request, st *state, entryID string) {
	ob, err := st.queue()
	if err != nil {
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	p, err := ob.SmallCopyPath(entryID)
	if err != nil {
		// Delivered meanwhile: the outbox let go of its files, and the
		// engine has the same small copy under the id minted at capture.
		if e, eerr := ob.Entry(r.Context(), entryID); eerr == nil && e.CopyID != "" {
			a.serveMedia(w, r, st, e.CopyID)
			return
		}
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Cache-Control", "private, max-age=3600")
	w.Header().Set("Content-Type", "image/jpeg")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	http.ServeFile(w, r, p)
}
