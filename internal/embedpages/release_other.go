//go:build !linux

package embedpages

func release(string) int { return 0 }
