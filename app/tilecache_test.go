package app

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/sparkfamily/spark/engine/client"
	"github.com/sparkfamily/spark/engine/enginetest"
)

// Issue 23: a tile is made once and kept in the data folder, so a start
// or a scroll back shows it from disk; one cut short by a crash is made
// again; a restart finds what the last start kept.
func TestMediaHandler_TileKept(t *testing.T) {
	remote := enginetest.Start(t, enginetest.WithoutSeat())
	cl := client.New(remote.URL, remote.Token, remote.Client())
	big := bigJPEG(t, 1600, 1200)
	id := uploadCopy(t, remote, cl, big, "image/jpeg")
	dir := t.TempDir()
	tiles := filepath.Join(dir, TilesDir)
	// What a crash left: a tile half written, and a file that is not ours.
	if err := os.MkdirAll(tiles, 0o700); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{"abc-640-v1.123456.tmp": "half", "notes.txt": "kept"} {
		if err := os.WriteFile(filepath.Join(tiles, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	a, _ := startApp(t, dir, nil)
	if _, err := a.Settings.UseRemote(remote.URL, remote.Token); err != nil {
		t.Fatal(err)
	}
	if names := tileNames(t, tiles); !slices.Equal(names, []string{"notes.txt"}) {
		t.Errorf("after the start, the tiles folder holds %v; want the leftover gone, notes.txt kept", names)
	}
	u := mediaURL(id) + "?size=" + ImageSizeTile
	get := func(a *App) []byte {
		t.Helper()
		rec := httptest.NewRecorder()
		a.MediaHandler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, u, nil))
		if rec.Code != http.StatusOK {
			t.Fatalf("GET %s = %d", u, rec.Code)
		}
		return rec.Body.Bytes()
	}
	first := get(a)
	kept := filepath.Join(tiles, tileKey(big, tileEdge)+tileFileSuffix)
	if b, err := os.ReadFile(kept); err != nil || !bytes.Equal(b, first) {
		t.Fatalf("the tile kept at %s: %d bytes, %v; want the %d served", kept, len(b), err, len(first))
	}

	// Shown again, it comes from the file: a marked tile put there is what
	// is served.
	marked := bigJPEG(t, 64, 48)
	if err := os.WriteFile(kept, marked, 0o600); err != nil {
		t.Fatal(err)
	}
	if got := get(a); !bytes.Equal(got, marked) {
		t.Errorf("shown again: %d bytes, not the %d kept", len(got), len(marked))
	}

	// Cut short: made again, and kept whole.
	if err := os.WriteFile(kept, first[:len(first)/2], 0o600); err != nil {
		t.Fatal(err)
	}
	if got := get(a); !bytes.Equal(got, first) {
		t.Errorf("a kept tile cut short: served %d bytes, want the tile made again (%d)", len(got), len(first))
	}
	if b, _ := os.ReadFile(kept); !bytes.Equal(b, first) {
		t.Errorf("a kept tile cut short is not kept whole again (%d bytes)", len(b))
	}

	// A restart on the folder finds it.
	a.Shutdown()
	if err := os.WriteFile(kept, marked, 0o600); err != nil {
		t.Fatal(err)
	}
	a2, _ := startApp(t, dir, nil)
	if got := get(a2); !bytes.Equal(got, marked) {
		t.Errorf("after a restart: %d bytes, not the %d kept", len(got), len(marked))
	}
}

func tileNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// The tiles kept stay under the limit: past it, those used least lately
// go, down to three quarters of it.
func TestTileCache_Limit(t *testing.T) {
	dir := t.TempDir()
	tile := bigJPEG(t, 200, 150)
	limit := int64(len(tile)) * 4
	c, err := openTileCache(dir, limit, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	keys := []string{"a", "b", "c", "d"}
	old := time.Now().Add(-time.Hour)
	for i, k := range keys {
		c.put(k, tile)
		// a is the oldest, d the newest.
		when := old.Add(time.Duration(i) * time.Minute)
		if err := os.Chtimes(c.path(k), when, when); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok := c.get("a"); !ok { // a used now: kept longer than b
		t.Fatal("a is not kept")
	}
	c.put("e", tile) // five tiles: past the limit
	var left []string
	for _, k := range []string{"a", "b", "c", "d", "e"} {
		if _, err := os.Stat(c.path(k)); err == nil {
			left = append(left, k)
		}
	}
	if want := []string{"a", "d", "e"}; !slices.Equal(left, want) {
		t.Errorf("kept %v; want %v (three quarters of the limit, the least used lately gone)", left, want)
	}
	if c.size != int64(len(left)*len(tile)) {
		t.Errorf("size = %d, want %d", c.size, len(left)*len(tile))
	}
}
