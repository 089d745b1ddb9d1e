package app

import (
	"net/url"
	"path/filepath"
	"runtime"
)

// fileURL is the file:// URL of a local path, for opening a folder.
func fileURL(path string) string {
	p := filepath.ToSlash(path)
	if runtime.GOOS == "windows" {
		p = "/" + p
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}
