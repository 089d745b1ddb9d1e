package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/sparkfamily/spark/engine/backup"
)

func backupCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "key" {
		return backupKeyCmd(ctx, args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "check" {
		return backupCheckCmd(ctx, args[1:], stdout, stderr)
	}
	fs := newFlagSet("backup", stderr, "backup --data DIR --to file:///PATH | s3://BUCKET/PREFIX [--backup-endpoint URL]")
	data := dataFlag(fs)
	to := fs.String("to", "", "where the copy is kept: file:///PATH (an external disk or a mounted share) or s3://BUCKET/PREFIX (credentials from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION or ~/.aws)")
	endpoint := endpointFlag(fs)
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("backup takes no arguments, got %q", pos)
	}
	if *to == "" {
		return usagef("backup: say where the copy goes with --to file:///PATH or --to s3://BUCKET/PREFIX")
	}
	dir, err := existingDataDir(*data)
	if err != nil {
		return err
	}
	t, err := backup.Open(ctx, *to, backup.Options{Endpoint: *endpoint})
	if err != nil {
		return err
	}
	key, err := shippingKey(dir, stdout)
	if err != nil {
		return err
	}
	start := time.Now()
	sh := &backup.Shipper{Dir: dir, Target: t, Key: key, Logger: slog.New(slog.NewTextHandler(stderr, nil))}
	st, err := sh.Ship(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "backup: %s holds the log of %s through seq %d; this run shipped %d segment(s) (%d bytes) and %d photo(s) (%d bytes) in %s\n",
		t, dir, st.LastSeq, st.Segments, st.LogBytes, st.Media, st.MediaBytes, time.Since(start).Round(time.Millisecond))
	return nil
}

// endpointFlag is --backup-endpoint, the address of an S3-compatible
// store that is not AWS.
func endpointFlag(fs *flag.FlagSet) *string {
	return fs.String("backup-endpoint", "", "the URL of an S3-compatible store that is not AWS (Backblaze B2, Wasabi, a NAS running versitygw or MinIO), e.g. https://s3.eu-central-003.backblazeb2.com; buckets are addressed path-style")
}

func restoreCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("restore", stderr, "restore --from file:///PATH | s3://BUCKET/PREFIX [--backup-endpoint URL] --data EMPTY_DIR [--key FILE] [--seq N | --at RFC3339]")
	data := fs.String("data", "", "the empty folder to restore into (made if missing)")
	from := fs.String("from", "", "where the copy is kept: file:///PATH or s3://BUCKET/PREFIX")
	endpoint := endpointFlag(fs)
	seq := fs.Uint64("seq", 0, "restore up to op N (the whole group that holds it)")
	keyFile := fs.String("key", "", "the copy's key: its recovery text (from `spark-engine backup key show`) or the backup.key of the folder it was made of")
	at := fs.String("at", "", "restore the log up to the first op logged after this time (RFC 3339, e.g. 2026-12-06T21:00:00Z)")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("restore takes no arguments, got %q", pos)
	}
	if *from == "" || *data == "" {
		return usagef("restore: say where the copy is with --from file:///PATH (or s3://BUCKET/PREFIX) and the empty folder with --data DIR")
	}
	opts := backup.RestoreOptions{Seq: *seq, Out: stdout, Logger: slog.New(slog.NewTextHandler(stderr, nil))}
	if *at != "" {
		if *seq != 0 {
			return usagef("restore: give --seq or --at, not both")
		}
		if opts.At, err = time.Parse(time.RFC3339Nano, *at); err != nil {
			return usagef("restore: --at %q is not an RFC 3339 time (e.g. 2026-12-06T21:00:00Z)", *at)
		}
	}
	if *keyFile != "" {
		if opts.Key, err = readKeyFile(*keyFile); err != nil {
			return err
		}
	}
	dir, err := filepath.Abs(*data)
	if err != nil {
		return err
	}
	t, err := backup.Open(ctx, *from, backup.Options{Endpoint: *endpoint})
	if err != nil {
		return err
	}
	start := time.Now()
	res, err := backup.Restore(ctx, t, dir, opts)
	if errors.Is(err, backup.ErrFsck) {
		fmt.Fprintf(stderr, "restore: fsck of %s did not come out clean (see above); keep the folder for a person to look at, and say so at the issue tracker\n", dir)
		return errCheckFailed
	}
	if errors.Is(err, backup.ErrNotEmpty) {
		return err
	}
	if err != nil {
		if ents, rerr := os.ReadDir(dir); rerr == nil && len(ents) > 0 {
			return fmt.Errorf("%w\nrestore: %s holds what was restored before this; empty it (or pick a new folder) before trying again", err, dir)
		}
		return err
	}
	if *seq > res.LastSeq {
		fmt.Fprintf(stdout, "note: the copy ends at seq %d, before the %d asked; all of it was restored\n", res.LastSeq, *seq)
	}
	fmt.Fprintf(stdout, `restore: %s now holds the copy's log through seq %d (logged %s) and %d photo(s) (%d bytes), checked, in %s.

Devices reconnect with new tokens: tokens are not in the copy. For each
computer, run "spark-engine token add NAME --data %s", start the engine
on this folder, and give that computer the connection text again (the
engine's address and the new token) in its Settings.
`, dir, res.LastSeq, res.At.Format(time.RFC3339), res.Media, res.MediaBytes, time.Since(start).Round(time.Millisecond), dir)
	return nil
}
