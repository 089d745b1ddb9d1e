package outbox

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

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

// TestFormatSize_SameAsWindow: the spark command's sizes and the window's
// (sizeWords in frontend/src/words.ts, tested against the same file) are
// the same words.
func TestFormatSize_SameAsWindow(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "frontend", "test", "testdata", "sizes.json"))
	if err != nil {
		t.Fatal(err)
	}
	var table [][2]any
	if err := json.Unmarshal(b, &table); err != nil {
		t.Fatal(err)
	}
	if len(table) < 10 {
		t.Fatalf("sizes.json has %d rows", len(table))
	}
	for _, row := range table {
		n, want := int64(row[0].(float64)), row[1].(string)
		if got := FormatSize(n); got != want {
			t.Errorf("FormatSize(%d) = %q; the window says %q", n, got, want)
		}
	}
}
