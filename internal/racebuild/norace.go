//go:build !race

package racebuild

// Enabled: this binary was built with the race detector.
const Enabled = false
