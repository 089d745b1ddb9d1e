//go:build race

package jpeg

// raceEnabled trims the slowest checks of the tests' own oracles.
const raceEnabled = true
