//go:build race

package wordsphotos

// raceEnabled: the race detector slows the drawing of the photos tenfold,
// so the tests draw the few of -short.
const raceEnabled = true
