// Command harness runs the Spark desktop app's real Go layer (package app:
// the real embedded engine, the real outbox, a data folder of its own)
// behind a plain HTTP server, so the end-to-end tests can drive the real UI
// in Chromium without a Wails window. It serves frontend/dist with a small
// script (shim.js) that provides window.go and window.runtime the way the
// Wails runtime does, the bound methods over POST /rpc/<Struct>/<Method>,
// and the app's events over server-sent events. A fake Pippa (an
// OpenAI-compatible server on loopback) gives the readings.
//
// Test-only routes under /test/ stand in for what a browser cannot do: they
// queue the answers of the file dialogs, generate photos, and start or stop
// a second real engine that plays the family engine.
//
// Usage: go run ./e2e/harness -dist frontend/dist [-listen 127.0.0.1:0] [-data DIR] [-url-file FILE]
package main

import (
	"context"
	"embed"
	"errors"
	"flag"
	"fmt"
	"log"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/sparkfamily/spark/app"
)

//go:embed shim.js
var shimFS embed.FS

func main() {
	listen := flag.String("listen", "127.0.0.1:0", "where to serve the UI")
	dist := flag.String("dist", "frontend/dist", "the built UI")
	data := flag.String("data", "", "the app's data folder (default: a new temp folder, removed at exit)")
	urlFile := flag.String("url-file", "", "write the harness's URL to this file once it serves")
	verbose := flag.Bool("v", false, "log the app to stderr")
	flag.Parse()
	if err := run(*listen, *dist, *data, *urlFile, *verbose); err != nil {
		log.Fatal("harness: ", err)
	}
}

func run(listen, dist, data, urlFile string, verbose bool) error {
	if _, err := os.Stat(filepath.Join(dist, "index.html")); err != nil {
		return fmt.Errorf("no built UI in %s (run npm run build in frontend/): %w", dist, err)
	}
	tmp, err := os.MkdirTemp("", "spark-harness-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if data == "" {
		data = filepath.Join(tmp, "data")
	}
	logger := slog.New(slog.DiscardHandler)
	if verbose {
		logger = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}

	pippa, err := startFakePippa()
	if err != nil {
		return err
	}
	defer pippa.Close()

	a := app.New(app.Options{DataDir: data, Logger: logger})
	sh := &shell{}
	a.Startup(context.Background(), sh)
	defer a.Shutdown()
	if st, _ := a.Settings.Status(); !st.Ready {
		return fmt.Errorf("the app did not start: %s", st.Problem)
	}
	if _, err := a.Settings.SetPippa(app.Pippa{URL: pippa.URL(), Model: "fake-pippa"}); err != nil {
		return fmt.Errorf("set the fake Pippa: %w", err)
	}

	t := &testAPI{shell: sh, app: a, dir: tmp, pippa: pippa.URL(), fake: pippa, data: data, logger: logger}
	defer t.stopRemote()

	mux := http.NewServeMux()
	mux.Handle("POST /rpc/{struct}/{method}", newRPC(a.Bind()))
	mux.HandleFunc("GET /events", sh.events)
	mux.HandleFunc("GET /harness-shim.js", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript")
		b, _ := shimFS.ReadFile("shim.js")
		w.Write(b)
	})
	t.routes(mux)
	media := a.MediaHandler()
	mux.Handle("/media/", media)
	mux.Handle("/outbox-copy/", media)
	mux.Handle("/", ui(dist))

	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return err
	}
	url := "http://" + ln.Addr().String()
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	if urlFile != "" {
		if err := os.WriteFile(urlFile, []byte(url+"\n"), 0o600); err != nil {
			return err
		}
	}
	fmt.Println("harness serving", url, "data", data)

	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return nil
}

// ui serves the built UI, with shim.js loaded before the app's module in
// index.html.
func ui(dist string) http.Handler {
	files := http.FileServer(http.Dir(dist))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" && r.URL.Path != "/index.html" {
			files.ServeHTTP(w, r)
			return
		}
		b, err := os.ReadFile(filepath.Join(dist, "index.html"))
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		page := strings.Replace(string(b), "<script", `<script src="/harness-shim.js"></script><script`, 1)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		fmt.Fprint(w, page)
	})
}
