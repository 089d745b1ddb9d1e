//go:build !linux && !darwin

package heifwasm

import "context"

// withMemory leaves the instances' linear memory to wazero (in the Go
// heap) elsewhere (Windows).
func withMemory(ctx context.Context) context.Context { return ctx }
