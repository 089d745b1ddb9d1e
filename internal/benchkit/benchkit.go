// Package benchkit holds what Spark's bench tooling (spark-bench and its
// child processes above all) needs to print a figure beside its peer: the
// median of a few runs, the machine's load average, the process's peak
// memory and its CPU time. It is for measuring only; nothing in the app
// or the engine imports it.
package benchkit

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
)

// Median returns the middle of xs (the upper middle of an even count), or
// the zero value for none. xs is not reordered.
func Median[T cmp.Ordered](xs []T) T {
	if len(xs) == 0 {
		var zero T
		return zero
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// LoadAverage returns the load averages over 1, 5 and 15 minutes as
// /proc/loadavg gives them ("0.81 1.02 1.10"), or "unknown" where there is
// no /proc.
func LoadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

// PeakRSS returns this process's peak resident memory in bytes (VmHWM).
// It needs Linux's /proc.
func PeakRSS() (int64, error) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, fmt.Errorf("peak RSS needs Linux's /proc: %w", err)
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			f := strings.Fields(v)
			if len(f) == 2 && f[1] == "kB" {
				n, err := strconv.ParseInt(f[0], 10, 64)
				if err != nil {
					return 0, fmt.Errorf("read VmHWM %q: %w", v, err)
				}
				return n << 10, nil
			}
		}
	}
	return 0, errors.New("no VmHWM in /proc/self/status")
}
