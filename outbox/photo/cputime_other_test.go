//go:build !unix

package photo

import "testing"

// reportCPU reports nothing where getrusage is missing.
func reportCPU(b *testing.B) func() { return func() {} }
