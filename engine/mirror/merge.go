package mirror

import "unicode"

// maxMergeCells bounds the work of one merge: the product of the two
// word counts compared. Captions past it are not merged (the later one
// becomes the caption and the other an alternative), so a fold never
// spends more than about a megabyte and a few milliseconds on one edit.
const maxMergeCells = 1 << 20

// merge3 merges two captions written from the same base, word by word:
// where only one of them changed a stretch of the base, that change is
// taken; where both changed the same stretch differently, they conflict
// and ok is false. Words are runs of non-space characters; the spaces
// between them are tokens of their own, so that "bill" at the end of one
// caption still matches "bill " inside another.
//
// It is part of the fold's definition (every engine and replica must fold
// the same log to the same mirror): a change to what it returns bumps
// SchemaVersion.
func merge3(base, a, b string) (merged string, ok bool) {
	bt, at, btk := tokens(base), tokens(a), tokens(b)
	if len(bt)*len(at) > maxMergeCells || len(bt)*len(btk) > maxMergeCells {
		return "", false
	}
	ma, mb := matches(bt, at), matches(bt, btk)
	var out []string
	i, ia, ib := 0, 0, 0
	for {
		// The next stable token: one of the base kept by both.
		j := i
		for j < len(bt) && (ma[j] < 0 || mb[j] < 0) {
			j++
		}
		ea, eb := len(at), len(btk)
		if j < len(bt) {
			ea, eb = ma[j], mb[j]
		}
		chunk, ok := resolve(bt[i:j], at[ia:ea], btk[ib:eb])
		if !ok {
			return "", false
		}
		out = append(out, chunk...)
		if j == len(bt) {
			break
		}
		out = append(out, bt[j])
		i, ia, ib = j+1, ea+1, eb+1
	}
	n := 0
	for _, t := range out {
		n += len(t)
	}
	buf := make([]byte, 0, n)
	for _, t := range out {
		buf = append(buf, t...)
	}
	return string(buf), true
}

// resolve is one unstable stretch of a three-way merge: the change of the
// side that changed it, either side when both made the same change, and
// false when both changed it differently.
func resolve(base, a, b []string) ([]string, bool) {
	switch {
	case same(a, base):
		return b, true
	case same(b, base), same(a, b):
		return a, true
	}
	return nil, false
}

func same(x, y []string) bool {
	if len(x) != len(y) {
		return false
	}
	for i := range x {
		if x[i] != y[i] {
			return false
		}
	}
	return true
}

// tokens splits s into runs of spaces and runs of anything else.
func tokens(s string) []string {
	var out []string
	start, space := 0, false
	for i, r := range s {
		sp := unicode.IsSpace(r)
		if i > start && sp != space {
			out = append(out, s[start:i])
			start = i
		}
		space = sp
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

// matches aligns x with y by a longest common subsequence: for each token
// of x, the index in y it is matched with, or -1. Ties break the same way
// every time (the fold depends on it).
func matches(x, y []string) []int {
	n, m := len(x), len(y)
	// l[i][j] is the LCS length of x[i:] and y[j:], in one slice.
	w := m + 1
	l := make([]int32, (n+1)*w)
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			switch {
			case x[i] == y[j]:
				l[i*w+j] = l[(i+1)*w+j+1] + 1
			case l[(i+1)*w+j] >= l[i*w+j+1]:
				l[i*w+j] = l[(i+1)*w+j]
			default:
				l[i*w+j] = l[i*w+j+1]
			}
		}
	}
	out := make([]int, n)
	for k := range out {
		out[k] = -1
	}
	for i, j := 0, 0; i < n && j < m; {
		switch {
		case x[i] == y[j]:
			out[i] = j
			i, j = i+1, j+1
		case l[(i+1)*w+j] >= l[i*w+j+1]:
			i++
		default:
			j++
		}
	}
	return out
}
