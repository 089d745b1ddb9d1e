package app

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"runtime"
	"time"

	"github.com/sparkfamily/spark/outbox/photo"
)

// ImageSizeTile is the value of ?size= on a /media/ or /outbox-copy/ URL
// that asks for the picture at the size of a tile of the window's lists,
// not the 1,600-pixel small copy. WebKit keeps a picture on screen
// decoded: a tile from the small copy costs 7.7 MB, one of tileEdge
// pixels 1.2 MB.
const ImageSizeTile = "tile"

const (
	// tileEdge is the long edge of a tile in pixels: a tile is at most
	// 320 CSS pixels wide, so it stays sharp at a scale of 200%.
	tileEdge = 640
	// tileSourceLimit bounds the copy a tile is made from, held in memory
	// while it is made. Small copies are well under it; a larger answer
	// is served as it is.
	tileSourceLimit = 16 << 20
	// tileSourcePixels bounds the picture a tile is made from, decoded in
	// memory: a small copy has 1,600 pixels at most on its long edge (2
	// megapixels); a larger one, which only a peer could send, is served
	// as it is rather than decoded here.
	tileSourcePixels = 16_000_000
)

// tileSlots lets one tile per core be made at a time, so a page of tiles
// does not hold every copy decoded at once.
var tileSlots = make(chan struct{}, runtime.NumCPU())

// serveTile answers r with the picture serve would give, shrunk to a tile.
// serve is one of the media handler's own answers; a Range or condition
// of r applies to the tile, not to the copy. What is not a picture larger
// than a tile (an error, a copy that does not decode, a copy already
// small) is served as serve gave it.
// Tiles made are kept in cache (nil: none kept).
func serveTile(w http.ResponseWriter, r *http.Request, cache *tileCache, serve func(http.ResponseWriter, *http.Request)) {
	whole := r.Clone(r.Context())
	whole.Method = http.MethodGet
	for _, h := range []string{"Range", "If-Range", "If-None-Match", "If-Modified-Since"} {
		whole.Header.Del(h)
	}
	src := &bufferedAnswer{header: http.Header{}, limit: tileSourceLimit}
	serve(src, whole)
	if src.over {
		serve(w, r) // too large to hold: the copy itself, streamed
		return
	}
	if src.code != http.StatusOK {
		src.sendAsIs(w, r)
		return
	}
	tile, ok := makeTile(r.Context(), r.URL.Path, src.body.Bytes(), cache)
	if !ok {
		src.sendAsIs(w, r)
		return
	}
	w.Header().Set("Content-Type", "image/jpeg")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	if cc := src.header.Get("Cache-Control"); cc != "" {
		w.Header().Set("Cache-Control", cc)
	}
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(tile))
}

// makeTile returns the tile of the picture b, kept in cache or made (and
// then kept), or false where b is not a picture larger than a tile (and
// of at most tileSourcePixels) or the request ended first.
func makeTile(ctx context.Context, name string, b []byte, cache *tileCache) ([]byte, bool) {
	info, err := photo.Probe(bytes.NewReader(b))
	if err != nil {
		return nil, false
	}
	if w, h := info.Upright(); w <= tileEdge && h <= tileEdge || int64(w)*int64(h) > tileSourcePixels {
		return nil, false
	}
	var key string
	if cache != nil {
		key = tileKey(b, tileEdge)
		if tile, ok := cache.get(key); ok {
			return tile, true
		}
	}
	select {
	case tileSlots <- struct{}{}:
		defer func() { <-tileSlots }()
	case <-ctx.Done():
		return nil, false
	}
	var out bytes.Buffer
	if _, err := photo.SmallCopyOf(ctx, name, bytes.NewReader(b), &out, photo.Options{MaxEdge: tileEdge, MaxPixels: tileSourcePixels}); err != nil {
		return nil, false
	}
	if cache != nil {
		cache.put(key, out.Bytes())
	}
	return out.Bytes(), true
}

// errAnswerTooLarge stops an answer of more than bufferedAnswer.limit.
var errAnswerTooLarge = errors.New("the answer is larger than a tile's source may be")

// bufferedAnswer is an http.ResponseWriter that keeps an answer in memory,
// up to limit bytes of body.
type bufferedAnswer struct {
	header http.Header
	code   int
	body   bytes.Buffer
	limit  int
	over   bool
}

func (b *bufferedAnswer) Header() http.Header { return b.header }

func (b *bufferedAnswer) WriteHeader(code int) {
	if b.code == 0 {
		b.code = code
	}
}

func (b *bufferedAnswer) Write(p []byte) (int, error) {
	b.WriteHeader(http.StatusOK)
	if b.body.Len()+len(p) > b.limit {
		b.over = true
		return 0, errAnswerTooLarge
	}
	return b.body.Write(p)
}

// sendAsIs gives w the answer b holds. A whole picture goes through
// http.ServeContent, so that r's Range and HEAD are honoured as they
// would have been.
func (b *bufferedAnswer) sendAsIs(w http.ResponseWriter, r *http.Request) {
	for k, v := range b.header {
		w.Header()[k] = v
	}
	if b.code == http.StatusOK {
		for _, h := range []string{"Content-Length", "Content-Range", "Accept-Ranges"} {
			w.Header().Del(h)
		}
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(b.body.Bytes()))
		return
	}
	w.WriteHeader(b.code)
	if r.Method != http.MethodHead {
		_, _ = w.Write(b.body.Bytes())
	}
}
