package mirror

import (
	"strings"
	"testing"
)

func TestMerge3(t *testing.T) {
	for _, tc := range []struct {
		name, base, a, b string
		want             string
		ok               bool
	}{
		{"only a changed", "Water bill March", "Water bill for March", "Water bill March", "Water bill for March", true},
		{"only b changed", "Water bill March", "Water bill March", "Gas bill March", "Gas bill March", true},
		{"different words", "Water bill March", "Water bill for March", "Gas bill March", "Gas bill for March", true},
		{"a word added at the end", "Water bill", "Water bill for March", "Gas bill", "Gas bill for March", true},
		{"both the same change", "letter", "letter from the bank", "letter from the bank", "letter from the bank", true},
		{"the same word changed two ways", "Water bill", "Gas bill", "Phone bill", "", false},
		{"two inserts at one place", "a c", "a X c", "a Y c", "", false},
		{"from empty, two ways", "", "Bank letter", "Council letter", "", false},
		{"one side emptied it, other changed a word", "Water bill", "", "Gas bill", "", false},
		{"spaces kept", "Water  bill", "Water  bill, paid", "Gas  bill", "Gas  bill, paid", true},
		{"lines", "Dear Sir\nRef 12\nThanks", "Dear Madam\nRef 12\nThanks", "Dear Sir\nRef RD/7731/Q\nThanks", "Dear Madam\nRef RD/7731/Q\nThanks", true},
		{"unicode", "Café à Paris", "Café à Lyon", "Le Café à Paris", "Le Café à Lyon", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := merge3(tc.base, tc.a, tc.b)
			if ok != tc.ok || got != tc.want {
				t.Fatalf("merge3(%q, %q, %q) = %q, %v; want %q, %v", tc.base, tc.a, tc.b, got, ok, tc.want, tc.ok)
			}
			// Swapping the sides merges to the same caption.
			if got2, ok2 := merge3(tc.base, tc.b, tc.a); ok2 != ok || got2 != got {
				t.Fatalf("merge3 with the sides swapped = %q, %v; want %q, %v", got2, ok2, got, ok)
			}
		})
	}
}

// TestMerge3_Bounded: captions too long to compare within the bound are
// not merged, and the refusal is quick.
func TestMerge3_Bounded(t *testing.T) {
	long := strings.Repeat("word ", 1200) // 2,400 tokens: 5.8 M cells
	if _, ok := merge3(long, long+"a", "b"+long); ok {
		t.Fatal("merge3 merged captions past maxMergeCells")
	}
	short := strings.Repeat("word ", 200)
	if got, ok := merge3(short, short+"a", "b"+short); !ok || got != "b"+short+"a" {
		t.Fatalf("merge3 of two 400-token captions = %.40q…, %v; want both changes", got, ok)
	}
}

func FuzzMerge3(f *testing.F) {
	f.Add("Water bill March", "Water bill for March", "Gas bill March")
	f.Add("a b c", "a c", "a b b c")
	f.Fuzz(func(t *testing.T, base, a, b string) {
		got, ok := merge3(base, a, b)
		if !ok {
			return
		}
		if a == base && got != b || b == base && got != a {
			t.Fatalf("merge3(%q, %q, %q) = %q: one side unchanged must give the other", base, a, b, got)
		}
		if got2, ok2 := merge3(base, b, a); !ok2 || got2 != got {
			t.Fatalf("merge3 is not symmetric: %q vs %q", got, got2)
		}
	})
}
