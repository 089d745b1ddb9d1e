package app

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strconv"
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
	// while it is made. Small copies are well under it (a 1,600-pixel
	// JPEG is a few hundred KB); a larger answer is served as it is.
	tileSourceLimit = 4 << 20
	// tileSources bounds the copies held in memory for tiles at once,
	// however many tiles the window asks for.
	tileSources = 8
	// tileSourcePixels bounds the picture a tile is made from, decoded in
	// memory: a small copy has 1,600 pixels at most on its long edge (2
	// megapixels); a larger one, which only a peer could send, is served
	// as it is rather than decoded here.
	tileSourcePixels = 16_000_000
	// tileMemory bounds the memory that the tiles being made take at
	// once, counted as the bytes their decoding allocates
	// (photo.Footprint), not as pixels: a PNG of 16 bits a channel counts
	// twice one of 8. A 1,600-pixel small copy takes 5 to 40 MB, as JPEG
	// or PNG, at any depth; a copy that needs more than all of it, which
	// only a peer could send, is served as it is. With tileSources copies
	// of tileSourceLimit, the tiles never hold more than 80 MB.
	tileMemory = 48 << 20
	// tileMakers is how many tiles are made at once at most, whatever the
	// number of cores: each takes at least its share of tileMemory.
	tileMakers = 4
)

var (
	// tileSlots holds a place for each copy held in memory for a tile.
	tileSlots = make(chan struct{}, tileSources)
	// tileBudget is tileMemory, shared by every tile being made.
	tileBudget = newBudget(tileMemory)
)

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
	select {
	case tileSlots <- struct{}{}:
		defer func() { <-tileSlots }()
	case <-r.Context().Done():
		return
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
// of at most tileSourcePixels, whose decoding fits in tileMemory) or the
// request ended first.
func makeTile(ctx context.Context, name string, b []byte, cache *tileCache) ([]byte, bool) {
	opts := photo.Options{MaxEdge: tileEdge, MaxPixels: tileSourcePixels}
	info, need, err := photo.Footprint(bytes.NewReader(b), opts)
	if err != nil {
		return nil, false
	}
	if w, h := info.Upright(); w <= tileEdge && h <= tileEdge || int64(w)*int64(h) > tileSourcePixels || need > tileMemory {
		return nil, false
	}
	var key string
	if cache != nil {
		key = tileKey(b, tileEdge)
		if tile, ok := cache.get(key); ok {
			return tile, true
		}
	}
	need = max(need, tileMemory/tileMakers)
	if err := tileBudget.acquire(ctx, need); err != nil {
		return nil, false
	}
	defer tileBudget.release(need)
	var out bytes.Buffer
	if _, err := photo.SmallCopyOf(ctx, name, bytes.NewReader(b), &out, opts); err != nil {
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
	if b.body.Cap() == 0 {
		// Room for the whole answer at once, not twice as much grown.
		if n, err := strconv.Atoi(b.header.Get("Content-Length")); err == nil && n > 0 {
			b.body.Grow(min(n, b.limit))
		}
	}
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
