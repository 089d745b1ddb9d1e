// Command seed captures photos into a Spark data folder's outbox, as the
// app's "Choose photos…" would, so that the app started on that folder has
// moments to show (e2e/window-test.sh uses it for the README's screenshot).
//
// Usage: go run ./e2e/seed -data DIR PHOTO...
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/sparkfamily/spark/outbox"
)

func main() {
	data := flag.String("data", "", "the Spark data folder")
	flag.Parse()
	if *data == "" || flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: seed -data DIR PHOTO...")
		os.Exit(2)
	}
	ctx := context.Background()
	ob, err := outbox.Open(ctx, filepath.Join(*data, "outbox"), outbox.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, "seed:", err)
		os.Exit(1)
	}
	defer ob.Close()
	failed := 0
	for _, r := range ob.Capture(ctx, flag.Args(), outbox.CaptureOptions{}) {
		if r.Err != nil {
			failed++
			fmt.Fprintln(os.Stderr, "seed:", r.Err)
		}
	}
	if failed > 0 {
		os.Exit(1)
	}
}
