//go:build !unix

package benchkit

import "time"

// CPUTime is 0 where getrusage is missing: CPU figures are left out there.
func CPUTime() time.Duration { return 0 }
