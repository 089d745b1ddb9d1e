// Command spark-bench measures Spark's costly paths on this machine and
// prints the figures side by side with their goals.
//
//	spark-bench [flags] all          run every benchmark (not the tools)
//	spark-bench [flags] NAME...      run the named ones
//	spark-bench list                 name them
//
// Each benchmark lives in its own file and registers itself in init with
// register; flags are shared and may come before or after the names. A
// benchmark that measures something in a process of its own runs this
// program again as a child (child.go).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"

	"github.com/sparkfamily/spark/internal/version"
)

// bench is one benchmark: a line of help and the function that runs it
// and prints its table to out. A tool (such as words-photos, which writes
// a bench's photos) is run by its name only, never by all.
type bench struct {
	help string
	run  func(ctx context.Context, out io.Writer) error
	tool bool
}

// benches is filled by the init functions of this package's files.
var benches = map[string]bench{}

var showVersion = flag.Bool("version", false, "print the version and exit")

func register(name string, b bench) {
	if _, dup := benches[name]; dup {
		panic("spark-bench: benchmark " + name + " registered twice")
	}
	benches[name] = b
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "spark-bench:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, out io.Writer) error {
	if isChild(args) {
		return childMain(ctx, args, out)
	}
	var names []string
	// Names may come first ("smallcopy --photos DIR") or after the flags.
	for len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		names = append(names, args[0])
		args = args[1:]
	}
	flag.CommandLine.Usage = func() { usage(flag.CommandLine.Output()) }
	if err := flag.CommandLine.Parse(args); err != nil {
		return err
	}
	if *showVersion {
		fmt.Fprintln(out, "spark-bench", version.Version)
		return nil
	}
	names = append(names, flag.Args()...)
	if len(names) == 0 {
		usage(os.Stderr)
		return fmt.Errorf("name a benchmark, or all")
	}
	if len(names) == 1 && names[0] == "list" {
		usage(out)
		return nil
	}
	if slices.Contains(names, "all") {
		names = slices.DeleteFunc(sortedNames(), func(n string) bool { return benches[n].tool })
	}
	for _, n := range names {
		if _, ok := benches[n]; !ok {
			return fmt.Errorf("no benchmark named %q; known: %s", n, strings.Join(sortedNames(), ", "))
		}
	}
	for _, n := range names {
		if err := benches[n].run(ctx, out); err != nil {
			return fmt.Errorf("%s: %w", n, err)
		}
	}
	return nil
}

func sortedNames() []string {
	var names []string
	for n := range benches {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: spark-bench [flags] all | NAME...")
	fmt.Fprintln(w, "\nbenchmarks:")
	for _, n := range sortedNames() {
		fmt.Fprintf(w, "  %-12s %s\n", n, benches[n].help)
	}
	fmt.Fprintln(w, "\nflags:")
	flag.CommandLine.SetOutput(w)
	flag.CommandLine.PrintDefaults()
}
