package app

import (
	"log/slog"
	"net/url"
	"path/filepath"
	"runtime"

	"github.com/sparkfamily/spark/internal/datadir"
)

// defaultDataDir is Spark's data folder when Options.DataDir is empty:
// datadir.Default, which on Windows is %LocalAppData%\Spark and moves an
// older Spark's %AppData%\Spark there on the first start, saying so in log.
func defaultDataDir(log *slog.Logger) (string, error) { return datadir.Default(log) }

// fileURL is the file:// URL of a local path, for opening a folder.
func fileURL(path string) string {
	p := filepath.ToSlash(path)
	if runtime.GOOS == "windows" {
		p = "/" + p
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}
