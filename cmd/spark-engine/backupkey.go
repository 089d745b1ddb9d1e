package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/sparkfamily/spark/engine/backup"
)

// backupKeyCmd is `backup key show --data DIR`: it prints the recovery
// text of the folder's key, making the key if the folder has none yet
// (and saying so on stderr).
func backupKeyCmd(_ context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "show" {
		return usagef("backup key: say what to do: backup key show --data DIR")
	}
	fs := newFlagSet("backup key show", stderr, "backup key show --data DIR")
	data := dataFlag(fs)
	pos, err := parseArgs(fs, args[1:])
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("backup key show takes no arguments, got %q", pos)
	}
	dir, err := existingDataDir(*data)
	if err != nil {
		return err
	}
	k, created, err := backup.LoadOrCreateKey(dir)
	if err != nil {
		return err
	}
	if created {
		// On stderr: stdout is the recovery text alone, an age identity
		// file as it is.
		fmt.Fprintf(stderr, "The folder had no key for its off-site copy: a new one is made, in %s.\n", filepath.Join(dir, backup.KeyFile))
	}
	fmt.Fprint(stdout, k.RecoveryText())
	return nil
}

// shippingKey is the key the copy of dir is encrypted to, made on first
// use; when it is made, it says so, once, plainly.
func shippingKey(dir string, stdout io.Writer) (*backup.Key, error) {
	k, created, err := backup.LoadOrCreateKey(dir)
	if err != nil {
		return nil, err
	}
	if created {
		fmt.Fprintf(stdout, `backup: the copy is encrypted with a new key, kept in %s.
Without that key nobody can read the copy, not even you: if this computer
is lost, the key is lost with it. Keep a copy of it somewhere else now:
print the recovery text that
    spark-engine backup key show --data %s
shows, and keep the paper away from this computer.

`, filepath.Join(dir, backup.KeyFile), dir)
	}
	return k, nil
}

// readKeyFile reads restore's --key FILE: a key file or a recovery text.
func readKeyFile(path string) (*backup.Key, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("restore: --key: %w", err)
	}
	defer f.Close()
	k, err := backup.ParseKey(f)
	if err != nil {
		return nil, fmt.Errorf("restore: --key %s: %w", path, err)
	}
	return k, nil
}
