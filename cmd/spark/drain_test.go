package main

import (
	"fmt"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/sparkfamily/spark/engine/enginetest"
)

// deliveredLine matches drain's line for one delivered entry.
var deliveredLine = regexp.MustCompile(`(?m)^delivered (\S+) (\S+)$`)

// TestDrain_LineForEveryDelivery checks that `spark drain` prints a
// "delivered" line for every entry it delivers, including those whose
// deliveries end together with the last one (issue 14: the loop used to
// stop once nothing was pending, before it had read their events).
func TestDrain_LineForEveryDelivery(t *testing.T) {
	eng := enginetest.Start(t, enginetest.WithoutSeat())
	vars := map[string]string{"SPARK_ENGINE": eng.URL, "SPARK_TOKEN": eng.Token}
	for round := range 3 {
		data, src := t.TempDir(), t.TempDir()
		const n = 12
		for i := range n {
			writeJPEG(t, filepath.Join(src, fmt.Sprintf("p%02d.jpg", i)), uint8(round*n+i)*3)
		}
		if code, out, errOut := spark(t, nil, "--data", data, "import", src); code != 0 {
			t.Fatalf("import = %d\n%s\n%s", code, out, errOut)
		}
		code, out, errOut := spark(t, vars, "--data", data, "drain", "--for", "30s")
		if code != 0 {
			t.Fatalf("drain = %d\n%s\n%s", code, out, errOut)
		}
		seen := map[string]bool{}
		for _, m := range deliveredLine.FindAllStringSubmatch(out, -1) {
			if seen[m[1]] {
				t.Errorf("round %d: entry %s delivered twice:\n%s", round, m[1], out)
			}
			seen[m[1]] = true
		}
		l := outboxJSON(t, data)
		for _, e := range l.Entries {
			if !seen[e.ID] {
				t.Errorf("round %d: delivered entry %s (%s) has no line:\n%s", round, e.ID, e.Name, out)
			}
		}
		if len(seen) != n || len(l.Entries) != n {
			t.Fatalf("round %d: %d delivered lines for %d entries, want %d:\n%s", round, len(seen), len(l.Entries), n, out)
		}
	}
}
