// DSN builds the data source names Spark opens its SQLite
// databases with (the outbox, its lock and the engine's mirror), so that a
// path is data: a folder named with "#", "%", "?", spaces, letters outside
// ASCII, a drive letter or backslashes reaches SQLite as the very same
// file.
//
// modernc.org/sqlite reads its own parameters (_pragma, _txlock, ...) from
// everything after the DSN's first "?", and hands a "file:" DSN to SQLite
// whole, as a URI. So the path is written as a file: URI with every byte
// outside the unreserved set percent-escaped: "?" and "#" can no longer end
// it early, and "%" no longer starts an escape. (The plain, non-URI form
// cannot carry a path with "?", and SQLite reads a URI's "#" as the start of
// a fragment: a folder "a#b" used to give "database is locked" and a stray
// file "a".)

package sqlitedb

import (
	"net/url"
	"path/filepath"
	"strings"
)

// DSN returns the data source name that opens path with the driver's
// params (for example _pragma=busy_timeout(10000); nil for none).
//
// An absolute path becomes file:///PATH: on Windows file:///C:/dir/x.db,
// and a UNC path \\server\share\x.db file:////server/share/x.db (an empty
// authority, then the path). A relative path becomes file:PATH, which
// SQLite takes relative to the working directory.
func DSN(path string, params url.Values) string {
	p := filepath.ToSlash(path)
	var b strings.Builder
	b.WriteString("file:")
	if filepath.IsAbs(path) || strings.HasPrefix(p, "/") {
		b.WriteString("//")
		if !strings.HasPrefix(p, "/") {
			p = "/" + p // C:/dir → /C:/dir
		}
	}
	escapePath(&b, p)
	if len(params) > 0 {
		b.WriteByte('?')
		b.WriteString(params.Encode())
	}
	return b.String()
}

// escapePath writes p with every byte but the unreserved ones, "/" and ":"
// (a drive letter's) as %XX. SQLite decodes %XX in a URI's path back to the
// byte, so UTF-8 names come through whole.
func escapePath(b *strings.Builder, p string) {
	const hex = "0123456789ABCDEF"
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9',
			c == '-', c == '.', c == '_', c == '~', c == '/', c == ':':
			b.WriteByte(c)
		default:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
	}
}
