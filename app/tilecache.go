package app

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// TilesDir is the folder of the data folder where the tiles made are kept
// (tileCache), so that a start or a scroll back does not make them again.
const TilesDir = "tiles"

// tileCacheLimit bounds the tiles kept on disk: about 3,000 tiles.
const tileCacheLimit = 128 << 20

// tileCache keeps the tiles made, one file each, named by the SHA-256 of
// the copy a tile was made from and the tile's size. The name says what
// the bytes are made from, never which engine or id they came under: a
// peer's words never become a path, and one engine's copy can never
// stand for another's. It is a cache: a write is not synced, and a file
// that is not a whole JPEG is dropped and made again. When the files
// pass limit, the ones used least lately go, down to three quarters of it.
//
// Only the app that holds the data folder (its outbox's lock) opens it.
type tileCache struct {
	dir   string
	limit int64
	log   *slog.Logger

	mu   sync.Mutex
	size int64 // of the files, as last counted plus what was written since
}

// tileFileSuffix ends the name of every tile kept; a temp file being
// written ends otherwise, so a crash's leftover is told apart.
const tileFileSuffix = ".jpg"

// openTileCache opens (making it) the cache in dir, removes what a crash
// left half written, and counts what it holds.
func openTileCache(dir string, limit int64, log *slog.Logger) (*tileCache, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("open the tiles kept in %s: %w", dir, err)
	}
	c := &tileCache{dir: dir, limit: limit, log: log}
	files, err := c.files(true)
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		c.size += f.size
	}
	return c, nil
}

// tileFormat is the version of the tiles kept, in their names: a change
// of how tiles are made changes it, and the tiles of before are no longer
// found (trim removes them in time).
const tileFormat = 1

// tileKey names the tile of edge pixels made from the copy src.
func tileKey(src []byte, edge int) string {
	sum := sha256.Sum256(src)
	return fmt.Sprintf("%s-%d-v%d", hex.EncodeToString(sum[:]), edge, tileFormat)
}

func (c *tileCache) path(key string) string { return filepath.Join(c.dir, key+tileFileSuffix) }

// get returns the tile kept under key. A file that is not a whole JPEG
// (cut by a power cut, say) is removed, and reported as not kept.
func (c *tileCache) get(key string) ([]byte, bool) {
	p := c.path(key)
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, false
	}
	if !wholeJPEG(b) {
		c.remove(p, int64(len(b)))
		return nil, false
	}
	now := time.Now()
	_ = os.Chtimes(p, now, now) // used lately: kept longer
	return b, true
}

// put keeps tile under key. A failure (a full disk) is logged and
// otherwise ignored: the tile is made again when next asked for.
func (c *tileCache) put(key string, tile []byte) {
	p := c.path(key)
	f, err := os.CreateTemp(c.dir, key+".*.tmp")
	if err == nil {
		_, err = f.Write(tile)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Rename(f.Name(), p)
		}
		if err != nil {
			os.Remove(f.Name())
		}
	}
	if err != nil {
		c.log.Warn("could not keep a tile", "dir", c.dir, "err", err)
		return
	}
	c.mu.Lock()
	c.size += int64(len(tile))
	over := c.size > c.limit
	c.mu.Unlock()
	if over {
		c.trim()
	}
}

func (c *tileCache) remove(p string, size int64) {
	if err := os.Remove(p); err == nil {
		c.mu.Lock()
		c.size -= size
		c.mu.Unlock()
	}
}

type tileFile struct {
	path string
	size int64
	used time.Time
}

// files lists the tiles kept. With leftovers, it also removes the temp
// files of writes a crash cut short: only at open, since once open a temp
// file is one that put is writing.
func (c *tileCache) files(leftovers bool) ([]tileFile, error) {
	entries, err := os.ReadDir(c.dir)
	if err != nil {
		return nil, fmt.Errorf("list the tiles kept in %s: %w", c.dir, err)
	}
	var out []tileFile
	for _, e := range entries {
		p := filepath.Join(c.dir, e.Name())
		if !e.Type().IsRegular() {
			continue
		}
		if !strings.HasSuffix(e.Name(), tileFileSuffix) {
			if leftovers && strings.HasSuffix(e.Name(), ".tmp") {
				_ = os.Remove(p)
			}
			continue
		}
		info, err := e.Info()
		if errors.Is(err, fs.ErrNotExist) {
			continue
		} else if err != nil {
			return nil, fmt.Errorf("list the tiles kept in %s: %w", c.dir, err)
		}
		out = append(out, tileFile{path: p, size: info.Size(), used: info.ModTime()})
	}
	return out, nil
}

// trim removes the tiles used least lately until those left take three
// quarters of the limit.
func (c *tileCache) trim() {
	c.mu.Lock()
	defer c.mu.Unlock()
	files, err := c.files(false)
	if err != nil {
		c.log.Warn("could not trim the tiles kept", "err", err)
		return
	}
	var size int64
	for _, f := range files {
		size += f.size
	}
	slices.SortFunc(files, func(a, b tileFile) int { return a.used.Compare(b.used) })
	for _, f := range files {
		if size <= c.limit*3/4 {
			break
		}
		if err := os.Remove(f.path); err == nil || errors.Is(err, fs.ErrNotExist) {
			size -= f.size
		}
	}
	c.size = size
}

// wholeJPEG tells whether b starts and ends as a JPEG does (SOI, EOI): a
// tile cut short by a crash ends otherwise.
func wholeJPEG(b []byte) bool {
	return len(b) > 4 && bytes.HasPrefix(b, []byte{0xFF, 0xD8}) && bytes.HasSuffix(b, []byte{0xFF, 0xD9})
}
