package server

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/sparkfamily/spark/engine"
)

// pageWriter streams a page answer, {"<key>":[item,...],"next":<cursor>},
// encoding each item as it comes, and tells the engine when the page has
// reached engine.PageBytes. Its bytes are those writeJSON would write for
// the whole page.
type pageWriter struct {
	w     http.ResponseWriter
	key   string
	items int
	bytes int
	// werr is the first failed write: the client went away.
	werr error
}

func newPageWriter(w http.ResponseWriter, key string) *pageWriter {
	return &pageWriter{w: w, key: key}
}

// add writes one item; it returns engine.ErrPageOver, writing nothing,
// for an item that would take the page past PageBytes (never the first),
// engine.ErrPageFull once the page holds PageBytes, and the write's error
// if the client went away.
func (p *pageWriter) add(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if p.items > 0 && p.bytes+len(b)+1 > engine.PageBytes {
		return engine.ErrPageOver
	}
	if p.items == 0 {
		p.start()
	} else {
		p.write([]byte{','})
	}
	p.write(b)
	p.items++
	p.bytes += len(b) + 1
	if p.werr != nil {
		return p.werr
	}
	if p.bytes >= engine.PageBytes {
		return engine.ErrPageFull
	}
	return nil
}

// started reports whether the answer's status and first bytes are out.
func (p *pageWriter) started() bool { return p.items > 0 }

func (p *pageWriter) start() {
	h := p.w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	p.w.WriteHeader(http.StatusOK)
	p.write([]byte(`{"` + p.key + `":[`))
}

// finish writes the end of the page with its next cursor.
func (p *pageWriter) finish(next any) {
	if p.items == 0 {
		p.start()
	}
	b, _ := json.Marshal(next) // a *string or *uint64 cannot fail
	p.write([]byte(`],"next":`))
	p.write(b)
	p.write([]byte("}\n"))
}

func (p *pageWriter) write(b []byte) {
	if p.werr == nil {
		_, p.werr = p.w.Write(b)
	}
}

// pageFailed ends a page whose reading failed. Before any of it was sent,
// the failure is answered as an error; after, the answer can only be cut
// short (a client sees a broken answer, never a short page that looks
// whole), and a failure to write is the client's going away.
func (s *server) pageFailed(w http.ResponseWriter, r *http.Request, p *pageWriter, err error) {
	if !p.started() {
		s.Error(w, r, err)
		return
	}
	if p.werr == nil || !errors.Is(err, p.werr) {
		s.log.ErrorContext(r.Context(), "a page failed after it was partly sent; cutting the answer", "method", r.Method, "path", r.URL.Path, "err", err)
	}
	panic(http.ErrAbortHandler)
}
