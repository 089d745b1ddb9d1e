// Package embedpages lets go a served embedded file's pages.
//
// Files embedded with go:embed live in the program's read-only data,
// which the system maps from the program's file on disk: the pages of a
// file are read in when it is first served and stay counted in the
// process's memory for as long as it runs. The window's words reader
// (issue 37) asks once, when it starts, for 6.8 MB of such files (its
// engine and English data), which then stayed in the app's memory for
// good: 7 MB of the 20 MB a window that had read photos kept over one
// that had not.
//
// Release gives those pages back to the system (Linux); a later read of
// the file reads them in again, from the page cache or the disk, so
// nothing is lost but the time of that read.
package embedpages

import (
	"embed"
	"io"
	"io/fs"
	"net/http"
	"path"
	"reflect"
	"strings"
)

// Data gives the bytes of the embedded file name of fsys as they lie in
// the program's memory, without the copy that fs.ReadFile makes, and
// false if it can't tell where they lie.
//
// embed.FS gives no such view: Data reads the field its files keep their
// data in (embed's file.data, whose layout the compiler fixes), through
// reflect, and checks what it finds against what the file reads, so a
// Go whose embed keeps its files otherwise gives false, never bytes of
// another file.
func Data(fsys embed.FS, name string) (string, bool) {
	f, err := fsys.Open(name)
	if err != nil {
		return "", false
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || st.IsDir() {
		return "", false
	}
	v := reflect.ValueOf(f)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return "", false
	}
	file := v.Elem().FieldByName("f")
	if !file.IsValid() || file.Kind() != reflect.Pointer || file.IsNil() || file.Elem().Kind() != reflect.Struct {
		return "", false
	}
	data := file.Elem().FieldByName("data")
	if !data.IsValid() || data.Kind() != reflect.String {
		return "", false
	}
	s := data.String()
	if int64(len(s)) != st.Size() || !sameEnds(f, s) {
		return "", false
	}
	return s, true
}

// sameEnds checks that s starts and ends as the file f reads.
func sameEnds(f io.Reader, s string) bool {
	ra, ok := f.(io.ReaderAt)
	if !ok {
		return false
	}
	n := min(len(s), 64)
	buf := make([]byte, n)
	if _, err := ra.ReadAt(buf, 0); err != nil && err != io.EOF {
		return false
	}
	if string(buf) != s[:n] {
		return false
	}
	if _, err := ra.ReadAt(buf, int64(len(s)-n)); err != nil && err != io.EOF {
		return false
	}
	return string(buf) == s[len(s)-n:]
}

// Release gives back to the system the pages that only s's bytes fill,
// s being read-only data mapped from the program's file (Data's): it
// says how many bytes it let go. On systems other than Linux it does
// nothing.
func Release(s string) int { return release(s) }

// Middleware wraps the handler that serves the embedded files of fsys
// under root (the folder that answers the address /): once a file of at
// least min bytes is served, its pages are let go (Release). The window
// asks for each such file once, when it needs it, and keeps what it
// asked for itself; the app then holds no copy of it in memory.
//
// The files to let go are found once, here, by their size: a request
// for anything else (a photo the app serves, an address that is not a
// file) costs one lookup in a map that never grows.
func Middleware(fsys embed.FS, root string, min int) func(http.Handler) http.Handler {
	big := map[string]string{} // the address path -> the file's bytes
	fs.WalkDir(fsys, root, func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if info, err := d.Info(); err != nil || info.Size() < int64(min) {
			return nil
		}
		if s, ok := Data(fsys, name); ok {
			big["/"+strings.TrimPrefix(name, root+"/")] = s
		}
		return nil
	})
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			next.ServeHTTP(w, r)
			if s, ok := big[path.Clean("/"+r.URL.Path)]; ok {
				Release(s)
			}
		})
	}
}
