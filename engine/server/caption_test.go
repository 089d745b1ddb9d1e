package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/enginetest"
)

// TestCaptionCap: a 900 KiB caption used to be accepted (and a page of such
// moments took the engine's memory with it); a caption past 64 KiB is now
// 400 caption_too_long on create and edit, and nothing is written.
func TestCaptionCap(t *testing.T) {
	e := enginetest.Start(t, enginetest.WithoutSeat())
	huge := strings.Repeat("x", 900<<10)

	before := e.OpCount(t, "")
	a := call(t, e, "POST", "/v1/moments", api.CreateMomentRequest{Kind: api.KindNote, Caption: huge})
	msg := a.wantError(t, http.StatusBadRequest, api.CodeCaptionTooLong).Message
	if !strings.Contains(msg, "64 KiB") {
		t.Errorf("message %q does not say what the cap is", msg)
	}

	full := strings.Repeat("y", api.MaxCaptionBytes)
	m := createMoment(t, e, api.CreateMomentRequest{Caption: full})
	if len(m.Caption) != api.MaxCaptionBytes {
		t.Fatalf("caption of %d bytes came back as %d", api.MaxCaptionBytes, len(m.Caption))
	}
	over := full + "z"
	call(t, e, "PATCH", "/v1/moments/"+m.ID, api.EditMomentRequest{Caption: &over}).wantError(t, http.StatusBadRequest, api.CodeCaptionTooLong)
	if got := e.OpCount(t, ""); got != before+1 {
		t.Fatalf("the log holds %d ops, want %d: a refused caption was written", got, before+1)
	}
}
