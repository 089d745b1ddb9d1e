//go:build race

package photo

// raceEnabled trims the tests over large real photos, which the race
// detector slows down about tenfold.
const raceEnabled = true
