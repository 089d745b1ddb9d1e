package main

import "github.com/sparkfamily/spark/e2e/pippafake"

// fakeReading is what the harness's fake Pippa says about a photo; the
// tests keep a phrase from it.
const fakeReading = "A bright afternoon in the garden: a path leads to a red door, and someone left a blue cup on the step."

// startFakePippa starts the harness's fake Pippa (e2e/pippafake): the same
// reading for every photo, a recall for anything else.
func startFakePippa() (*pippafake.Server, error) {
	return pippafake.Start(func(content string) string {
		if !pippafake.HasImage(content) {
			return "Remembering together: the red door, the blue cup, and the afternoon light you kept."
		}
		return fakeReading
	})
}
