package main

import (
	"strings"
	"testing"

	"github.com/sparkfamily/spark/internal/hostile"
)

// spark sync talks to the engine through the client that refuses a
// redirect to another address: the token never reaches it, and the sync
// ends with an error saying why.
func TestSync_HostileRedirectKeepsTheToken(t *testing.T) {
	other := hostile.NewWitness(t)
	srv := hostile.Redirecting(t, 1, other.URL)
	vars := map[string]string{"SPARK_ENGINE": srv.URL, "SPARK_TOKEN": "secret-token"}
	code, out, errOut := spark(t, vars, "--data", t.TempDir(), "sync")
	if code == 0 {
		t.Errorf("sync against an engine redirecting elsewhere = 0\n%s", out)
	}
	if !strings.Contains(errOut, "redirect") {
		t.Errorf("sync's error does not say it was a redirect:\n%s", errOut)
	}
	if a := other.Tokens(); other.Hits() != 0 {
		t.Errorf("the other address got %d requests, Authorization %q", other.Hits(), a)
	}
}
