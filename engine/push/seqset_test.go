package push

import (
	"math/rand/v2"
	"testing"
)

// Seqs delivered out of order, above one held seq, stay a few runs, and
// the base moves over them once the held one comes.
func TestSeqSet(t *testing.T) {
	q := newSeqSet()
	const n = 200_000
	// Seq 1 is held (a reading never finished); 2..n arrive shuffled
	// within windows of 64, as workers deliver them.
	order := make([]uint64, 0, n)
	for s := uint64(2); s <= n; s++ {
		order = append(order, s)
	}
	rnd := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < len(order); i += 64 {
		w := order[i:min(i+64, len(order))]
		rnd.Shuffle(len(w), func(a, b int) { w[a], w[b] = w[b], w[a] })
	}
	base, most := uint64(0), 0
	for _, s := range order {
		q.add(s)
		base = q.advance(base)
		most = max(most, q.runs())
	}
	if base != 0 {
		t.Fatalf("base moved to %d over a held seq 1", base)
	}
	if most > 64 || q.runs() != 1 {
		t.Errorf("the set held up to %d runs, %d at the end; want at most a window's worth, then 1", most, q.runs())
	}
	q.add(1)
	if base = q.advance(base); base != n || q.runs() != 0 {
		t.Errorf("after the held seq: base %d, %d runs; want %d, 0", base, q.runs(), n)
	}
	// A repeat is ignored.
	q.add(n + 1)
	q.add(n + 1)
	if base = q.advance(base); base != n+1 {
		t.Errorf("base %d, want %d", base, n+1)
	}
}
