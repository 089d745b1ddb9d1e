package backup

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"runtime"
	"strings"
)

// Target is where the off-site copy is kept: a folder or an S3 bucket. It is the subset of an object store the copy needs, and nothing
// that could destroy what is there: no overwrite, no delete.
type Target interface {
	// Put stores size bytes read from body under name, only if no object
	// has that name (create-exclusive). sum is the bytes' SHA-256: a
	// body that does not match it is refused and nothing is stored. An
	// object already there with the same bytes is success; with other
	// bytes, ErrConflict.
	Put(ctx context.Context, name string, body io.Reader, size int64, sum [32]byte) error
	// Get opens the object name, or gives ErrNotFound.
	Get(ctx context.Context, name string) (io.ReadCloser, error)
	// Stat tells the size of the object name, or gives ErrNotFound.
	Stat(ctx context.Context, name string) (size int64, err error)
	// List calls fn with the name and size of every object whose name
	// starts with prefix, in byte order of the names (as S3 lists).
	List(ctx context.Context, prefix string, fn func(name string, size int64) error) error
	// String names the target for people, without secrets.
	String() string
}

var (
	// ErrNotFound is returned by Target.Get and Target.Stat for a name
	// no object has.
	ErrNotFound = errors.New("backup: no such object in the copy")
	// ErrConflict is returned by Target.Put when an object with that
	// name already holds other bytes: nothing shipped is overwritten.
	ErrConflict = errors.New("backup: an object with that name already holds other bytes; nothing shipped is ever overwritten")
	// ErrBadBody is returned by Target.Put when the bytes read do not
	// match the size or SHA-256 given.
	ErrBadBody = errors.New("backup: the bytes read do not match their size or SHA-256")
)

// validName reports whether name is an object name the copy uses: parts
// of [a-z0-9._-] joined by '/', none empty or starting with a dot.
func validName(name string) bool {
	if name == "" {
		return false
	}
	for _, part := range strings.Split(name, "/") {
		if part == "" || part[0] == '.' {
			return false
		}
		for i := 0; i < len(part); i++ {
			c := part[i]
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
				return false
			}
		}
	}
	return true
}

// Open opens the target a TARGET argument names: file:///PATH (a folder,
// on an external disk or a mounted share; made if missing) or
// s3://BUCKET/PREFIX (a bucket of an S3-compatible store, at
// opts.Endpoint when it is not AWS; see OpenS3).
func Open(ctx context.Context, target string, opts Options) (Target, error) {
	u, err := url.Parse(target)
	if err != nil {
		return nil, fmt.Errorf("backup: the target %q is not an address: %w", target, err)
	}
	switch u.Scheme {
	case "file":
		if u.Host != "" && u.Host != "localhost" {
			return nil, fmt.Errorf("backup: the target %q names a host; write a folder as file:///PATH (three slashes)", target)
		}
		if opts.Endpoint != "" {
			return nil, fmt.Errorf("backup: --backup-endpoint names an S3 store, and the target %q is a folder; leave it out, or write s3://BUCKET/PREFIX", target)
		}
		if u.Path == "" {
			return nil, fmt.Errorf("backup: the target %q names no folder; write file:///PATH", target)
		}
		return OpenFolder(filepath.FromSlash(folderPath(u.Path)))
	case "s3":
		if opts.Endpoint != "" {
			if e, err := url.Parse(opts.Endpoint); err != nil || (e.Scheme != "http" && e.Scheme != "https") || e.Host == "" {
				return nil, fmt.Errorf("backup: the endpoint %q is not http(s)://HOST[:PORT]", opts.Endpoint)
			}
		}
		return OpenS3(ctx, u.Host, u.Path, opts)
	default:
		return nil, fmt.Errorf("backup: the target %q is neither file:///PATH nor s3://BUCKET/PREFIX", target)
	}
}

// folderPath is the folder a file URL's path names: on Windows,
// file:///C:/Spark names C:/Spark.
func folderPath(p string) string {
	if runtime.GOOS == "windows" && len(p) >= 3 && p[0] == '/' && p[2] == ':' {
		return p[1:]
	}
	return p
}

// FileURL is the file:///PATH that names the folder path.
func FileURL(path string) string {
	return "file:///" + strings.TrimPrefix(filepath.ToSlash(path), "/")
}
