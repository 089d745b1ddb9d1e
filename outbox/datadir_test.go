package outbox

import (
	"errors"
	"path/filepath"
	"runtime"
	"testing"
)

func TestDefaultDataDir(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "darwin" {
		got, err := defaultDataDir(nil, nil, func() (string, error) { return "/cfg", nil })
		if err != nil || got != filepath.Join("/cfg", "Spark") {
			t.Errorf("got %q, %v", got, err)
		}
		return
	}
	home := func() (string, error) { return "/home/dad", nil }
	for _, tt := range []struct {
		xdg, want string
	}{
		{"", "/home/dad/.local/share/Spark"},
		{"/data", "/data/Spark"},
		{"relative/ignored", "/home/dad/.local/share/Spark"},
	} {
		got, err := defaultDataDir(func(string) string { return tt.xdg }, home, nil)
		if err != nil || got != tt.want {
			t.Errorf("XDG_DATA_HOME=%q: got %q, %v; want %q", tt.xdg, got, err, tt.want)
		}
	}
	_, err := defaultDataDir(func(string) string { return "" }, func() (string, error) { return "", errors.New("no home") }, nil)
	if err == nil {
		t.Error("no home and no XDG_DATA_HOME: want an error saying to pass --data")
	}
}
