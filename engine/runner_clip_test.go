package engine

import (
	"strings"
	"testing"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/pippa/pippatest"
)

// A seat's reading past api.MaxTurnTextBytes is kept, clipped to the cap
// with a mark, rather than logged whole (issue 25, item 3).
func TestRunnerClipsALongReading(t *testing.T) {
	p := pippatest.New(t)
	p.SetReply(func(pippatest.ChatRequest) string { return strings.Repeat("é", 3*api.MaxTurnTextBytes) })
	e := openEngine(t, t.TempDir(), withSeats(p.Config()))
	mo := photoMoment(t, e, "a long letter")
	tr, _, err := e.StartTurn(ctxT(t), mo.ID, api.StartTurnRequest{ClientRequestID: "long-1", Mode: api.ModePractical})
	if err != nil {
		t.Fatal(err)
	}
	done := waitTurn(t, e, tr.ID)
	if done.Status != api.TurnFinished || len(done.Text) > api.MaxTurnTextBytes || !strings.HasSuffix(done.Text, " [...]") ||
		!strings.HasPrefix(done.Text, "éé") || !strings.HasPrefix(strings.TrimSuffix(done.Text, " [...]"), strings.Repeat("é", 100)) {
		t.Fatalf("reading of %d bytes (status %s), want at most %d ending %q", len(done.Text), done.Status, api.MaxTurnTextBytes, " [...]")
	}
	if s := strings.TrimSuffix(done.Text, " [...]"); strings.Trim(s, "é") != "" {
		t.Fatalf("the clipped reading split a character: ...%q", s[len(s)-4:])
	}
}
