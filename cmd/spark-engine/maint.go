package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/sparkfamily/spark/engine"
)

// errCheckFailed is fsck's answer when a check did not hold (exit code 1).
var errCheckFailed = errors.New("fsck: a check did not hold; see above")

func rebuildCmd(ctx context.Context, args []string, stderr io.Writer) error {
	fs := newFlagSet("rebuild", stderr, "rebuild [--data DIR]")
	data := dataFlag(fs)
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("rebuild takes no arguments, got %q", pos)
	}
	dir, err := existingDataDir(*data)
	if err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(stderr, nil))
	if err := engine.Rebuild(ctx, dir, logger); err != nil {
		return fmt.Errorf("rebuild the mirror in %s: %w", dir, err)
	}
	return nil
}

func fsckCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("fsck", stderr, "fsck [--data DIR]")
	data := dataFlag(fs)
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("fsck takes no arguments, got %q", pos)
	}
	dir, err := existingDataDir(*data)
	if err != nil {
		return err
	}
	ok, err := engine.Fsck(ctx, dir, stdout)
	if err != nil {
		return fmt.Errorf("fsck %s: %w", dir, err)
	}
	if !ok {
		return errCheckFailed
	}
	return nil
}

// existingDataDir resolves --data and insists that it exists: rebuild and
// fsck work on an engine's data, never on a fresh directory.
func existingDataDir(flagValue string) (string, error) {
	dir, err := dataDir(flagValue)
	if err != nil {
		return "", err
	}
	st, err := os.Stat(dir)
	if err != nil {
		return "", fmt.Errorf("the data directory %s: %w; pass the engine's directory with --data DIR", dir, err)
	}
	if !st.IsDir() {
		return "", fmt.Errorf("%s is not a directory; pass the engine's data directory with --data DIR", dir)
	}
	return dir, nil
}
