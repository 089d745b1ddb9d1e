package push

// seqSet is a set of seqs held as runs [first, last]: the seqs a push has
// delivered above its checkpoint. Deliveries come nearly in order, so it
// holds a few runs whatever the log's length, even when one early reading
// held unfinished keeps the checkpoint from moving for the whole run.
type seqSet struct {
	byFirst map[uint64]uint64 // first -> last
	byLast  map[uint64]uint64 // last -> first
}

func newSeqSet() *seqSet {
	return &seqSet{byFirst: map[uint64]uint64{}, byLast: map[uint64]uint64{}}
}

// has reports whether s is the first or last of a run. A push adds each
// seq once (each op is one job, delivered once); has only keeps a repeat
// of a run's end from breaking the set.
func (q *seqSet) has(s uint64) bool {
	_, a := q.byFirst[s]
	_, b := q.byLast[s]
	return a || b
}

// add puts s in the set, joining the runs it touches. Each seq is added
// once (a repeat of a run's first or last is ignored).
func (q *seqSet) add(s uint64) {
	if q.has(s) {
		return
	}
	first, last := s, s
	if f, ok := q.byLast[s-1]; ok && s > 0 {
		delete(q.byLast, s-1)
		delete(q.byFirst, f)
		first = f
	}
	if l, ok := q.byFirst[s+1]; ok {
		delete(q.byFirst, s+1)
		delete(q.byLast, l)
		last = l
	}
	q.byFirst[first] = last
	q.byLast[last] = first
}

// advance returns base moved over the run that starts right after it
// (removed from the set), or base itself.
func (q *seqSet) advance(base uint64) uint64 {
	last, ok := q.byFirst[base+1]
	if !ok {
		return base
	}
	delete(q.byFirst, base+1)
	delete(q.byLast, last)
	return last
}

// runs is how many runs the set holds.
func (q *seqSet) runs() int { return len(q.byFirst) }
