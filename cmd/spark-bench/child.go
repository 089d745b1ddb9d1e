package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"

	"github.com/sparkfamily/spark/internal/benchkit"
)

// A child is a measurement a benchmark runs in a fresh process of this
// same program (spark-bench, or the test binary standing in for it), so
// that it starts from a fresh heap and its peak RSS (VmHWM) is its own.
//
// The protocol, the one way a benchmark runs itself as a child: the parent
// calls runChild with the child's name (which starts with "_", so no
// benchmark can take it) and its arguments; the program runs as
// "spark-bench NAME ARGS...", the child's function gets the arguments and
// returns its result, printed as JSON on stdout; runChild decodes it into
// the parent's value, or returns an error carrying what the child wrote
// on stderr.
type childFunc func(ctx context.Context, args []string) (any, error)

// children is filled by the init functions of this package's files.
var children = map[string]childFunc{}

func registerChild(name string, fn childFunc) {
	if !strings.HasPrefix(name, "_") {
		panic("spark-bench: child " + name + " must start with _")
	}
	if _, dup := children[name]; dup {
		panic("spark-bench: child " + name + " registered twice")
	}
	children[name] = fn
}

// isChild says whether args name a child to run in this process.
func isChild(args []string) bool {
	if len(args) == 0 {
		return false
	}
	_, ok := children[args[0]]
	return ok
}

// runChild runs the child name with args in a new process of this program
// and decodes what it printed into result.
func runChild(ctx context.Context, name string, args []string, result any) error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find this program to run the %s child: %w", name, err)
	}
	cmd := exec.CommandContext(ctx, exe, append([]string{name}, args...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s child: %w: %s", name, err, strings.TrimSpace(errb.String()))
	}
	if err := json.Unmarshal(out.Bytes(), result); err != nil {
		return fmt.Errorf("%s child printed %q: %w", name, out.String(), err)
	}
	return nil
}

// childMain is the child's side of runChild: it runs the child args name
// and prints its result as JSON on out.
func childMain(ctx context.Context, args []string, out io.Writer) error {
	res, err := children[args[0]](ctx, args[1:])
	if err != nil {
		return fmt.Errorf("%s: %w", args[0], err)
	}
	return json.NewEncoder(out).Encode(res)
}

// childArgs checks that a child got one argument per name.
func childArgs(args []string, names ...string) error {
	if len(args) != len(names) {
		return fmt.Errorf("want %s, got %q", strings.Join(names, " "), args)
	}
	return nil
}

// peakKB is this process's peak RSS in kB, as a child reports it.
func peakKB() (int, error) {
	peak, err := benchkit.PeakRSS()
	return int(peak >> 10), err
}
