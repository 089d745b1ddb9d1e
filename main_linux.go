package main

import "os"

// WebKitGTK 2.42 and later draw through DMA-BUF, which leaves the window
// blank on machines without a working GPU driver for it (virtual machines,
// some NVIDIA setups, Xvfb). Spark's pages are light, so the shared-memory
// path costs nothing noticeable; a user can still opt back in by setting
// the variable to 0.
func init() {
	if _, set := os.LookupEnv("WEBKIT_DISABLE_DMABUF_RENDERER"); !set {
		os.Setenv("WEBKIT_DISABLE_DMABUF_RENDERER", "1")
	}
}
