package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"time"

	"github.com/sparkfamily/spark/engine/backup"
)

// backupCheckCmd is `backup check`: the drill of a copy, once.
func backupCheckCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("backup check", stderr, "backup check --from file:///PATH | s3://BUCKET/PREFIX [--backup-endpoint URL] [--data DIR | --key FILE] [--temp DIR]")
	from := fs.String("from", "", "where the copy is kept: file:///PATH or s3://BUCKET/PREFIX")
	endpoint := endpointFlag(fs)
	data := fs.String("data", "", "the data folder of the engine that ships this copy: the result is kept in its "+backup.CheckFile+", where a running serve --backup-to takes it")
	keyFile := fs.String("key", "", "the copy's key (its recovery text, or a backup.key); without it, the key in --data's folder")
	temp := fs.String("temp", "", "the folder the copy is restored under for the check, in a temporary folder removed after (default: the system's temporary folder); it needs room for the log and the photos checked")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("backup check takes no arguments, got %q", pos)
	}
	if *from == "" {
		return usagef("backup check: say which copy with --from file:///PATH or --from s3://BUCKET/PREFIX")
	}
	var dir string
	if *data != "" {
		if dir, err = existingDataDir(*data); err != nil {
			return err
		}
	}
	var key *backup.Key
	switch {
	case *keyFile != "":
		if key, err = readKeyFile(*keyFile); err != nil {
			return err
		}
	case dir != "":
		if key, err = backup.LoadKey(dir); err != nil && !errors.Is(err, backup.ErrNoKey) {
			return err
		}
	}
	t, err := backup.Open(ctx, *from, backup.Options{Endpoint: *endpoint})
	if err != nil {
		return err
	}
	start := time.Now()
	c, cerr := backup.Check(ctx, t, backup.CheckOptions{TempDir: *temp, Key: key, Logger: slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	if ctx.Err() != nil {
		return ctx.Err()
	}
	took := time.Since(start)
	if dir != "" {
		if err := backup.RecordCheck(dir, t, c, cerr); err != nil {
			fmt.Fprintf(stderr, "backup check: %v\n", err)
		}
	}
	if cerr != nil {
		problem := backup.ProblemOf(cerr)
		fmt.Fprintf(stderr, "the copy in %s failed its check (%s) after %s:\n  %v\nWhat to do: %s\n", t, problem, seconds(took), cerr, backup.WhatToDo(problem))
		return errors.New("backup check: the copy did not pass; see above")
	}
	how := "restored and checked"
	if c.Sampled {
		how = "its whole log and a sample of its photos restored and checked"
	}
	fmt.Fprintf(stdout, "the copy in %s holds %s moments and %s; %s in %s: all well\n", t, thousands(int64(c.Moments)), byteSize(c.Bytes), how, seconds(took))
	return nil
}

// thousands writes n with commas between groups of three digits.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// byteSize writes n bytes in B, kB, MB or GB (powers of 1000, as disks
// are sold).
func byteSize(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d B", n)
	case n < 1000*1000:
		return fmt.Sprintf("%.1f kB", float64(n)/1e3)
	case n < 1000*1000*1000:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	default:
		return fmt.Sprintf("%.1f GB", float64(n)/1e9)
	}
}

// seconds writes d for people: 350 ms, 4.2 s, 41 s.
func seconds(d time.Duration) string {
	switch {
	case d < time.Second:
		return fmt.Sprintf("%d ms", d.Milliseconds())
	case d < 10*time.Second:
		return fmt.Sprintf("%.1f s", d.Seconds())
	default:
		return fmt.Sprintf("%.0f s", d.Seconds())
	}
}
