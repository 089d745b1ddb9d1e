package main

import (
	"errors"
	"testing"
	"time"
)

// TestABBA holds abba to its order (a, b, b, a), to the mean of each
// side's two turns, and to stopping at the first error.
func TestABBA(t *testing.T) {
	var order []string
	step := func(name string, took ...time.Duration) func(int) (time.Duration, error) {
		return func(turn int) (time.Duration, error) {
			order = append(order, name+string(rune('0'+turn)))
			return took[turn], nil
		}
	}
	a, b, err := abba(step("a", 10, 0, 0, 30), step("b", 0, 4, 8, 0))
	if err != nil {
		t.Fatal(err)
	}
	if got := order[0] + order[1] + order[2] + order[3]; got != "a0b1b2a3" {
		t.Errorf("order %s, want a0b1b2a3", got)
	}
	if a != 20 || b != 6 {
		t.Errorf("a %v, b %v; want 20ns and 6ns, the means of each side's two", a, b)
	}

	order = nil
	boom := errors.New("boom")
	_, _, err = abba(step("a", 1, 0, 0, 1), func(int) (time.Duration, error) { return 0, boom })
	if !errors.Is(err, boom) || len(order) != 1 {
		t.Errorf("err %v after %v; want boom after a0 alone", err, order)
	}
}
