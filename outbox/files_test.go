package outbox

import "testing"

func TestFormatSize(t *testing.T) {
	tests := []struct {
		n    int64
		want string
	}{
		{0, "0 bytes"},
		{1023, "1023 bytes"},
		{1024, "1 KB"},
		{1536, "2 KB"},
		{1 << 20, "1.0 MB"},
		{3*(1<<20) + (1 << 19), "3.5 MB"},
		{1 << 30, "1.0 GB"},
		{5 * (1 << 30), "5.0 GB"},
	}
	for _, tt := range tests {
		if got := FormatSize(tt.n); got != tt.want {
			t.Errorf("FormatSize(%d) = %q; want %q", tt.n, got, tt.want)
		}
	}
}
