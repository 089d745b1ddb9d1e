package embedpages

import (
	"embed"
	"io/fs"
	"testing"
)

//go:embed testdata
var testFS embed.FS

func TestData(t *testing.T) {
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"testdata/pages.txt", true},
		{"testdata/small.txt", true},
		{"testdata", false},         // a folder
		{"testdata/nosuch", false},  // not there
		{"../embedpages.go", false}, // not a name in the FS
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := Data(testFS, tc.name)
			if ok != tc.ok {
				t.Fatalf("Data(%q): ok = %v, want %v", tc.name, ok, tc.ok)
			}
			if !ok {
				return
			}
			want, err := fs.ReadFile(testFS, tc.name)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Fatalf("Data(%q) gives %d bytes that differ from the file's %d", tc.name, len(got), len(want))
			}
		})
	}
}
