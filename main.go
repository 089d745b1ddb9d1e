// Command spark is the Spark desktop app: a Wails window with the
// TypeScript UI of frontend/, over the bound methods of package app. This
// file only wires them together.
package main

import (
	"context"
	"embed"
	"log"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"
	"github.com/wailsapp/wails/v2/pkg/options/mac"
	"github.com/wailsapp/wails/v2/pkg/options/windows"
	"github.com/wailsapp/wails/v2/pkg/runtime"

	"github.com/sparkfamily/spark/app"
	"github.com/sparkfamily/spark/internal/embedpages"
	"github.com/sparkfamily/spark/internal/endsession"
	"github.com/sparkfamily/spark/internal/version"
)

//go:embed all:frontend/dist
var assets embed.FS

//go:embed build/appicon.png
var icon []byte

func main() {
	start := time.Now()
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	a := app.New(app.Options{DataDir: os.Getenv("SPARK_DATA"), Logger: logger})
	err := wails.Run(&options.App{
		Title:            "Spark",
		Width:            1180,
		Height:           800,
		MinWidth:         640,
		MinHeight:        480,
		BackgroundColour: options.NewRGB(250, 246, 240),
		AssetServer: &assetserver.Options{
			Assets:  assets,
			Handler: a.MediaHandler(),
			// The words reader's engine and language data (6.8 MB),
			// asked for once each time its worker starts, are not kept
			// in the app's memory once served.
			Middleware: embedpages.Middleware(assets, "frontend/dist", 1<<20),
		},
		OnStartup: func(ctx context.Context) {
			a.Startup(ctx, app.WailsShell(ctx))
			go quitOnSignal(ctx)
			// Windows tells a windowed app of a log off or shut down by
			// messages, not signals: the shutdown then runs before it ends
			// the process (nothing to do elsewhere).
			if _, err := endsession.Watch(a.Shutdown); err != nil {
				logger.Warn("cannot watch for the end of the session", "err", err)
			}
		},
		OnDomReady: func(ctx context.Context) {
			logger.Info("window ready", "since_start", time.Since(start).Round(time.Millisecond))
		},
		OnShutdown:     func(ctx context.Context) { a.Shutdown() },
		Bind:           a.Bind(),
		ErrorFormatter: app.FormatError,
		DragAndDrop:    &options.DragAndDrop{EnableFileDrop: true, DisableWebViewDrop: true},
		Linux:          &linux.Options{Icon: icon, ProgramName: "spark", WebviewGpuPolicy: linux.WebviewGpuPolicyOnDemand},
		Windows:        &windows.Options{Theme: windows.SystemDefault},
		Mac: &mac.Options{
			About: &mac.AboutInfo{Title: "Spark " + version.Version, Message: "Your family's moments, and Pippa's readings of them.", Icon: icon},
		},
	})
	if err != nil {
		log.Fatal(err)
	}
}

// quitOnSignal closes the window on SIGINT or SIGTERM (a logout, a service
// manager; on Windows Ctrl+C or Ctrl+Break, or its console window closed,
// when started from one), so the drain stops between steps and the
// engine's log is synced as when the user closes it.
func quitOnSignal(ctx context.Context) {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
	runtime.Quit(ctx)
}
