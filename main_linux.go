package main

/*
#cgo linux pkg-config: gtk+-3.0
#cgo !webkit2_41 pkg-config: webkit2gtk-4.0
#cgo webkit2_41 pkg-config: webkit2gtk-4.1
#include <webkit2/webkit2.h>

// sparkLighterWebKit sets what Wails v2 leaves at WebKitGTK's defaults, on
// the default web context, before Wails makes its web view (and with it
// the web and network processes) from that context:
//
// - The cache model of a document viewer: Spark's pages come from the
//   app itself (wails://), so WebKit keeps no page cache (back/forward)
//   and a small memory cache, instead of a web browser's.
static void sparkLighterWebKit(void) {
	WebKitWebContext *context = webkit_web_context_get_default();
	webkit_web_context_set_cache_model(context, WEBKIT_CACHE_MODEL_DOCUMENT_VIEWER);
}
*/
import "C"

import (
	"os"
	"runtime"
)

// WebKitGTK 2.42 and later draw through DMA-BUF, which leaves the window
// blank on machines without a working GPU driver for it (virtual machines,
// some NVIDIA setups, Xvfb). Spark's pages are light, so the shared-memory
// path costs nothing noticeable; a user can still opt back in by setting
// the variable to 0.
func init() {
	if _, set := os.LookupEnv("WEBKIT_DISABLE_DMABUF_RENDERER"); !set {
		os.Setenv("WEBKIT_DISABLE_DMABUF_RENDERER", "1")
	}
	// WebKit binds its main run loop to the thread that first uses it, and
	// aborts when GTK later runs on another: the main goroutine stays on
	// the main thread (where init runs, and where Wails starts GTK), or
	// the window crashed in one start in a few.
	runtime.LockOSThread()
	C.sparkLighterWebKit()
}
