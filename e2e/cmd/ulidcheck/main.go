// Command ulidcheck is the Go side of the TypeScript ULID test
// (frontend/test/ulid.test.ts): it decodes ULIDs made by the UI with
// oklog/ulid, and mints ULIDs with oklog/ulid's monotonic entropy for the
// UI's decoder, so both sides are checked against the reference.
//
// Usage: go run ./e2e/cmd/ulidcheck -ms MILLIS -n COUNT [ULID...]
// It prints one JSON object: each argument decoded (its time in ms, or the
// parse error), whether the arguments strictly increase, and COUNT ULIDs
// minted at MILLIS.
package main

import (
	"crypto/rand"
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/oklog/ulid/v2"
)

type decoded struct {
	ID    string `json:"id"`
	Ms    uint64 `json:"ms"`
	Error string `json:"error,omitempty"`
}

type report struct {
	Decoded    []decoded `json:"decoded"`
	Increasing bool      `json:"increasing"`
	Minted     []string  `json:"minted"`
}

func main() {
	ms := flag.Uint64("ms", 0, "the millisecond time to mint ULIDs at")
	n := flag.Int("n", 0, "how many ULIDs to mint")
	flag.Parse()

	r := report{Increasing: true, Decoded: []decoded{}, Minted: []string{}}
	var prev ulid.ULID
	for i, s := range flag.Args() {
		id, err := ulid.ParseStrict(s)
		if err != nil {
			r.Decoded = append(r.Decoded, decoded{ID: s, Error: err.Error()})
			r.Increasing = false
			continue
		}
		r.Decoded = append(r.Decoded, decoded{ID: s, Ms: id.Time()})
		if i > 0 && id.Compare(prev) <= 0 {
			r.Increasing = false
		}
		prev = id
	}
	entropy := ulid.Monotonic(rand.Reader, 0)
	for range *n {
		id, err := ulid.New(*ms, entropy)
		if err != nil {
			fmt.Fprintln(os.Stderr, "ulidcheck:", err)
			os.Exit(1)
		}
		r.Minted = append(r.Minted, id.String())
	}
	if err := json.NewEncoder(os.Stdout).Encode(r); err != nil {
		fmt.Fprintln(os.Stderr, "ulidcheck:", err)
		os.Exit(1)
	}
}
