// Command spark is Spark's headless client: it imports photos into the
// outbox and delivers them to an engine, for scripts, headless machines and
// tests. It shares the desktop app's outbox (DATA/outbox), but not at the
// same time: the outbox is held by one process at a time.
//
//	spark [--data DIR] [--engine URL] [--token TOKEN] COMMAND [ARGS]
//
//	import PATHS... [--force]   capture files and folders (recursive)
//	note TEXT                   write a note; prints its moment's id
//	caption MOMENT_ID TEXT      set a moment's caption
//	delete MOMENT_ID            delete a moment
//	restore MOMENT_ID           bring a deleted moment back
//	drain [--for 2m] [--watch]  send now; exit 0 once nothing is pending
//	outbox [--json]             list entries with their steps and state
//	sync [--watch] [--rebuild]  copy the engine onto this computer (DATA/replica)
//	moments [--json] [--deleted] list moments from this computer's copy, no network
//	retry ID | --all            put parked entries back to pending
//	discard ID [--export DIR]   remove an entry (exporting its original first)
//	--version                   print the version
//
// The engine comes from --engine/--token, else SPARK_ENGINE/SPARK_TOKEN,
// else the app's settings when it is set to a remote engine.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/sparkfamily/spark/internal/version"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], env{stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv, isTerminal: isTerminal})
	stop()
	os.Exit(code)
}

// env is what a command may touch of the outside world; tests fill it.
type env struct {
	stdout, stderr io.Writer
	getenv         func(string) string
	isTerminal     func(io.Writer) bool
}

// globals are the flags every command takes.
type globals struct {
	data, engine, token string
}

func (g *globals) register(fs *flag.FlagSet) {
	fs.StringVar(&g.data, "data", g.data, "Spark's data folder (default: the user data folder + Spark)")
	fs.StringVar(&g.engine, "engine", g.engine, "the engine's URL (or SPARK_ENGINE)")
	fs.StringVar(&g.token, "token", g.token, "the engine's token (or SPARK_TOKEN)")
}

// errUsage marks a mistake in the command line (exit status 2).
var errUsage = errors.New("usage")

const usage = `usage: spark [--data DIR] [--engine URL] [--token TOKEN] COMMAND [ARGS]

commands:
  import PATHS... [--force]   make photos safe in the outbox (folders are walked)
  note TEXT                   write a note; prints the new moment's id
  caption MOMENT_ID TEXT      set a moment's caption
  delete MOMENT_ID            delete a moment
  restore MOMENT_ID           bring a deleted moment back
                              (each is kept in the outbox at once, with no network;
                              drain sends it)
  drain [--for 2m] [--watch]  send the outbox now; exit 0 once nothing is pending
  outbox [--json]             list entries, their steps, state and reasons
  sync [--watch] [--rebuild]  copy the engine's moments, readings and small photos
                              onto this computer; exit 0 once up to date
  moments [--json] [--deleted]
                              list the moments on this computer (with the photos not
                              sent yet), with no network; --deleted: Recently deleted
  retry ID | --all            put parked entries back to pending
  discard ID [--export DIR]   remove an entry, copying its original to DIR first
  --version                   print the version

The engine comes from --engine and --token, or SPARK_ENGINE and SPARK_TOKEN.
`

func run(ctx context.Context, args []string, e env) int {
	var g globals
	top := flag.NewFlagSet("spark", flag.ContinueOnError)
	top.SetOutput(io.Discard)
	g.register(top)
	showVersion := top.Bool("version", false, "print the version")
	if err := top.Parse(args); err != nil {
		fmt.Fprintf(e.stderr, "spark: %v\n\n%s", err, usage)
		return 2
	}
	if *showVersion {
		fmt.Fprintln(e.stdout, "spark", version.Version)
		return 0
	}
	if top.NArg() == 0 {
		fmt.Fprint(e.stderr, usage)
		return 2
	}
	cmd, rest := top.Arg(0), top.Args()[1:]
	switch cmd {
	case "version":
		fmt.Fprintln(e.stdout, "spark", version.Version)
		return 0
	case "help":
		fmt.Fprint(e.stdout, usage)
		return 0
	}
	run, ok := commands[cmd]
	if !ok {
		fmt.Fprintf(e.stderr, "spark: unknown command %q\n\n%s", cmd, usage)
		return 2
	}
	err := run(ctx, &g, rest, e)
	switch {
	case err == nil:
		return 0
	case errors.Is(err, errUsage):
		fmt.Fprintf(e.stderr, "spark %s: %v\n\n%s", cmd, err, usage)
		return 2
	case errors.Is(err, errReported):
		return 1
	}
	fmt.Fprintf(e.stderr, "spark %s: %v\n", cmd, err)
	return 1
}

// commands are spark's commands by name (version and help aside).
var commands = map[string]func(context.Context, *globals, []string, env) error{
	"import":  cmdImport,
	"note":    cmdNote,
	"caption": cmdCaption,
	"delete":  cmdDelete,
	"restore": cmdRestore,
	"drain":   cmdDrain,
	"outbox":  cmdOutbox,
	"retry":   cmdRetry,
	"sync":    cmdSync,
	"moments": cmdMoments,
	"discard": cmdDiscard,
}

// errReported means the command already printed why it failed.
var errReported = errors.New("failed")

// parseInterleaved parses flags that may come before, between or after
// positional arguments ("spark import a b --force").
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	fs.SetOutput(io.Discard)
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, fmt.Errorf("%w: %v", errUsage, err)
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// oneLine squeezes a message onto one line for listings.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
