package main

import (
	"strings"
	"sync/atomic"

	"github.com/sparkfamily/spark/engine/pippa/pippatest"
)

// fakeReading is what the harness's fake Pippa says about a photo; the
// tests keep a phrase from it.
const fakeReading = "A bright afternoon in the garden: a path leads to a red door, and someone left a blue cup on the step."

// carefulReply, when not empty, is what the fake Pippa says in a careful
// reading of a photo instead of fakeReading (POST /test/pippa
// {"carefulReply"}), so that a test can tell her two readings apart. A
// careful reading is told by engine/pippa's instruction for it.
var carefulReply atomic.Value // string

// startFakePippa starts the harness's fake Pippa (the project's one,
// engine/pippa/pippatest): the same reading for every photo (or
// carefulReply for a careful one), a recall for anything else.
func startFakePippa() (*pippatest.Server, error) {
	p, err := pippatest.Start()
	if err != nil {
		return nil, err
	}
	p.SetReply(func(r pippatest.ChatRequest) string {
		if len(r.Images()) == 0 {
			return "Remembering together: the red door, the blue cup, and the afternoon light you kept."
		}
		if c, _ := carefulReply.Load().(string); c != "" && strings.Contains(r.UserText(), "careful, thorough reading") {
			return c
		}
		return fakeReading
	})
	return p, nil
}
