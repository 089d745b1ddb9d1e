package outbox

import (
	"slices"
	"testing"
)

// TestKinds_Table: every kind of write in the table can be sent, repeats
// by a column it has, and is listed by WriteKinds; a photo is not a write.
// A kind missing its send fell through to bad_entry at run time before
// the table.
func TestKinds_Table(t *testing.T) {
	ws := WriteKinds()
	if slices.Contains(ws, KindPhoto) {
		t.Errorf("WriteKinds() = %v lists the photo", ws)
	}
	if len(ws) != len(kinds)-1 {
		t.Errorf("WriteKinds() = %v: %d kinds, the table has %d writes", ws, len(ws), len(kinds)-1)
	}
	for _, k := range ws {
		spec := kinds[k]
		if spec.send == nil {
			t.Errorf("the kind %q has no send", k)
		}
		if spec.repeats != "" && spec.repeats != "moment_id" && spec.repeats != "phrase_id" {
			t.Errorf("the kind %q repeats by %q, not a column of a write", k, spec.repeats)
		}
		if spec.merges && spec.repeats != "" {
			t.Errorf("the kind %q both merges and repeats", k)
		}
		if n := len(stepsOf(k)); n == 0 {
			t.Errorf("the kind %q has no step", k)
		}
	}
	if got := stepsOf(KindPhoto); !slices.Equal(got, Steps) {
		t.Errorf("a photo's steps = %v, want %v", got, Steps)
	}
}
