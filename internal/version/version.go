// Package version holds the build's version, set at link time by the build
// scripts with -ldflags "-X github.com/sparkfamily/spark/internal/version.Version=...",
// from git describe.
package version

// Version is "dev" in a plain go build.
var Version = "dev"
