// Command spark-engine runs the Spark engine alone, for a family server, and
// looks after its data directory.
//
//	spark-engine serve   --data DIR --listen ADDR   serve the v1 contract
//	spark-engine token   add|list|revoke ...        manage bearer tokens
//	spark-engine rebuild --data DIR                 rebuild the mirror from the log
//	spark-engine fsck    --data DIR                 check log, mirror and media
//	spark-engine push    --data SRC --to URL        copy a corpus to another engine
//	spark-engine --version
//
// Exit codes: 0 success; 1 failure (for fsck: a check did not hold); 2 a
// usage error.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"

	"github.com/sparkfamily/spark/internal/datadir"
	"github.com/sparkfamily/spark/internal/version"
)

const usage = `spark-engine runs a Spark engine: the server every Spark client sends its
moments to, with the op log, the media and Pippa's turns in one data directory.

Usage:
  spark-engine serve   [--data DIR] [--listen ADDR] [--max-media-size BYTES] [--log-file FILE]
                       [--backup-to file:///PATH|s3://BUCKET/PREFIX [--backup-endpoint URL]]
                                              serve; with --backup-to, keep an off-site
                                              copy current (every 10 s) and drill it daily
  spark-engine token add NAME [--member MEMBER] [--scope device|admin] [--data DIR]
                                              print a new token for NAME, alone on stdout;
                                              it belongs to MEMBER (NAME unless told):
                                              all of a member's tokens may change what
                                              any of them added; device (the default) for
                                              a family member's computer, admin for
                                              whoever runs the engine
  spark-engine token list [--data DIR]        list the tokens' names, members and scopes
  spark-engine token revoke NAME [--data DIR] revoke NAME's token
  spark-engine rebuild [--data DIR]           rebuild the SQLite mirror from the op log
  spark-engine fsck    [--data DIR]           check the log, the mirror and every media file
  spark-engine push    --data SRC --to URL --token TOKEN [--json]
                                             copy every moment of SRC to another engine
  spark-engine backup  --data DIR --to file:///PATH|s3://BUCKET/PREFIX [--backup-endpoint URL]
                                             ship DIR's photos and log to an off-site
                                             copy (only what it lacks), encrypted, then exit
  spark-engine backup key show [--data DIR]  print the copy's key as a recovery text to keep
  spark-engine backup check --from file:///PATH|s3://BUCKET/PREFIX [--backup-endpoint URL] [--data DIR]
                                             restore the copy into a temporary folder and
                                             check it; with --data, tell DIR's serve
  spark-engine restore --from file:///PATH|s3://BUCKET/PREFIX [--backup-endpoint URL]
                       --data EMPTY_DIR [--key FILE] [--seq N | --at RFC3339]
                                             restore the copy (up to op N or a time)
                                             into an empty folder, checked by fsck
  spark-engine --version

The data directory defaults to %s.
serve listens on 127.0.0.1:8787 unless told otherwise; put it behind a TLS
reverse proxy to reach it from other machines (see docs/ENGINE.md). On
Windows it also runs as a service (sc.exe create; see docs/ENGINE.md).
Pippa's first brain seat comes from SPARK_BRAIN_URL, SPARK_BRAIN_MODEL and
SPARK_BRAIN_KEY.

Exit codes: 0 success, 1 failure (fsck: a check did not hold), 2 usage error.
Run "spark-engine COMMAND -h" for a command's flags.
`

// errUsage marks an error in how the command was called (exit code 2).
var errUsage = errors.New("usage")

// usageError is a usage mistake with a message for the person.
type usageError struct{ msg string }

func (e *usageError) Error() string        { return e.msg }
func (e *usageError) Is(target error) bool { return target == errUsage }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

func main() {
	if code, ok := runService(os.Args[1:]); ok {
		os.Exit(code)
	}
	ctx, stop := notifyStop(context.Background())
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run executes one command line and returns the process's exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	err := dispatch(ctx, args, stdout, stderr)
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errUsage):
		fmt.Fprintf(stderr, "spark-engine: %v\nRun \"spark-engine -h\" for usage.\n", err)
		return 2
	default:
		fmt.Fprintf(stderr, "spark-engine: %v\n", err)
		return 1
	}
}

func dispatch(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprintf(stderr, usage, defaultDataDirText())
		return usagef("no command given")
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "-h", "-help", "--help", "help":
		fmt.Fprintf(stdout, usage, defaultDataDirText())
		return nil
	case "--version", "-version", "version":
		fmt.Fprintf(stdout, "spark-engine %s (%s, %s/%s)\n", version.Version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
		return nil
	case "serve":
		return serveCmd(ctx, rest, stderr)
	case "token":
		return tokenCmd(rest, stdout, stderr)
	case "rebuild":
		return rebuildCmd(ctx, rest, stderr)
	case "fsck":
		return fsckCmd(ctx, rest, stdout, stderr)
	case "push":
		return pushCmd(ctx, rest, stdout, stderr)
	case "backup":
		return backupCmd(ctx, rest, stdout, stderr)
	case "restore":
		return restoreCmd(ctx, rest, stdout, stderr)
	default:
		return usagef("unknown command %q", cmd)
	}
}

// newFlagSet makes a flag set that reports errors instead of exiting.
func newFlagSet(name string, stderr io.Writer, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: spark-engine %s\n\nFlags:\n", synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// parseArgs parses flags that may come before or after positional
// arguments ("token add NAME --data DIR") and returns the positionals.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, usagef("%s: %v", fs.Name(), err)
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// dataFlag adds --data to fs.
func dataFlag(fs *flag.FlagSet) *string {
	return fs.String("data", "", "the engine's data directory (default "+defaultDataDirText()+")")
}

// dataDir resolves --data: the flag, else the engine/ folder of Spark's
// data folder (datadir.Dir; on Windows %LocalAppData%\Spark\engine).
func dataDir(flagValue string) (string, error) {
	if flagValue != "" {
		return filepath.Abs(flagValue)
	}
	base, err := datadir.Dir()
	if err != nil {
		return "", fmt.Errorf("find the default data directory: %w", err)
	}
	return filepath.Join(base, "engine"), nil
}

func defaultDataDirText() string {
	base, err := datadir.Dir()
	if err != nil {
		return filepath.Join("<user data dir>", datadir.Name, "engine")
	}
	return filepath.Join(base, "engine")
}
