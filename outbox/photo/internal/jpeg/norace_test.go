//go:build !race

package jpeg

const raceEnabled = false
