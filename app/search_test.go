package app

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/oklog/ulid/v2"
)

// A search that finds nothing answers an empty list, never null: the
// window reads its results as a list (search.ts). The search of what waits
// in the outbox once turned an empty list into null, and the window's
// search never said "Nothing found".
func TestSearch_NothingFoundIsAnEmptyList(t *testing.T) {
	a, _ := startApp(t, t.TempDir(), nil)
	if _, err := a.Moments.AddNote(ulid.Make().String(), "the dentist on Friday"); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"xylophone", "dentist"} {
		sv, err := a.Moments.Search(q)
		if err != nil {
			t.Fatalf("Search(%q): %v", q, err)
		}
		b, err := json.Marshal(sv)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), `"results":null`) || strings.Contains(string(b), `"phrases":null`) {
			t.Errorf("Search(%q) = %s; want lists, never null", q, b)
		}
	}
}
