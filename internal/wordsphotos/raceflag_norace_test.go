//go:build !race

package wordsphotos

const raceEnabled = false
