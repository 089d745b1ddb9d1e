package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/sparkfamily/spark/outbox"
)

// saveOriginal copies an entry's original into dir without taking it out
// of the outbox (the outbox's own export only runs as part of Discard). It
// reads the file where the outbox's doc.go documents it,
// DIR/files/<id>/original, and never writes there. The copy gets the
// entry's file name, made unique, and is synced before it is reported.
func saveOriginal(ob *outbox.Outbox, id, dir string) (string, error) {
	if id == "" || strings.ContainsAny(id, `/\.`) {
		return "", badInput("%q is not an outbox entry.", id)
	}
	e, err := ob.Entry(context.Background(), id)
	if err != nil {
		return "", err
	}
	src, err := os.Open(filepath.Join(ob.Dir(), "files", id, "original"))
	if errors.Is(err, fs.ErrNotExist) {
		return "", badInput("The original of %s is no longer in the outbox: it was delivered. Open it from Moments instead.", e.Name)
	}
	if err != nil {
		return "", fmt.Errorf("read the original of %s: %w", e.Name, err)
	}
	defer src.Close()
	name := e.Name
	if name == "" {
		name = id
	}
	dst, path, err := createUnique(dir, name)
	if err != nil {
		return "", fmt.Errorf("save the original in %s: %w", dir, err)
	}
	_, err = io.Copy(dst, src)
	if err == nil {
		err = dst.Sync()
	}
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return "", fmt.Errorf("save the original as %s (is the disk full?): %w", path, err)
	}
	return path, nil
}

// createUnique creates dir/name, or dir/"name (2)" and so on when taken.
func createUnique(dir, name string) (*os.File, string, error) {
	ext := filepath.Ext(name)
	stem := strings.TrimSuffix(name, ext)
	for i := 1; i < 1000; i++ {
		p := filepath.Join(dir, name)
		if i > 1 {
			p = filepath.Join(dir, fmt.Sprintf("%s (%d)%s", stem, i, ext))
		}
		f, err := os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, p, err
	}
	return nil, "", fmt.Errorf("too many files named like %s", name)
}
