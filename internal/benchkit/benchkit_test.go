package benchkit

import (
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestMedian(t *testing.T) {
	for _, tt := range []struct {
		in   []time.Duration
		want time.Duration
	}{
		{nil, 0},
		{[]time.Duration{3}, 3},
		{[]time.Duration{5, 1, 3}, 3},
		{[]time.Duration{4, 1, 3, 2}, 3},
	} {
		in := append([]time.Duration(nil), tt.in...)
		if got := Median(tt.in); got != tt.want {
			t.Errorf("Median(%v) = %v, want %v", in, got, tt.want)
		}
		for i := range in {
			if in[i] != tt.in[i] {
				t.Errorf("Median reordered its input: %v, was %v", tt.in, in)
			}
		}
	}
	if got := Median([]float64{2.5, 0.5, 1.5}); got != 1.5 {
		t.Errorf("Median of floats = %v", got)
	}
}

func TestMachineFigures(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("load average and peak RSS come from Linux's /proc")
	}
	if la := LoadAverage(); len(strings.Fields(la)) != 3 {
		t.Errorf("LoadAverage() = %q, want three figures", la)
	}
	n, err := PeakRSS()
	if err != nil || n < 1<<20 {
		t.Errorf("PeakRSS() = %d, %v; want at least 1 MB", n, err)
	}
	start := CPUTime()
	for deadline := time.Now().Add(50 * time.Millisecond); time.Now().Before(deadline); {
	}
	if CPUTime() <= start {
		t.Error("CPUTime did not grow over 50 ms of work")
	}
}
