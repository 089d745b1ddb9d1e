package app

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestOutboxCodesMirrored checks that frontend/src/words.ts, where every
// word of the outbox is made, knows every code the Go side sends in its
// place: why a photo waits (Entry.Wait).
func TestOutboxCodesMirrored(t *testing.T) {
	ts, err := os.ReadFile(filepath.Join("..", "frontend", "src", "words.ts"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		union, file string
		match       func(name, typ string) bool
	}{
		{"WaitCode", "outboxapi.go", func(name, _ string) bool { return strings.HasPrefix(name, "Wait") }},
	} {
		want := goConstants(t, c.file, c.match)
		got := tsUnion(t, string(ts), c.union)
		slices.Sort(want)
		slices.Sort(got)
		if len(want) == 0 || !slices.Equal(got, want) {
			t.Errorf("words.ts %s = %q; the Go constants of %s are %q", c.union, got, c.file, want)
		}
	}
}
