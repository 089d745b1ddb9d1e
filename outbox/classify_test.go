package outbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"syscall"
	"testing"
	"time"

	"github.com/sparkfamily/spark/engine/api"
)

func TestClassify(t *testing.T) {
	httpErr := func(status int, code string, after time.Duration) error {
		return fmt.Errorf("create moment X: %w", &api.Error{Status: status, Code: code, Message: "m", RetryAfter: after})
	}
	for _, tt := range []struct {
		name  string
		err   error
		park  bool
		code  string
		after time.Duration
		// away: the engine did not answer (Verdict.Unreachable).
		away bool
	}{
		{"400", httpErr(400, api.CodeBadID, 0), true, api.CodeBadID, 0, false},
		{"404", httpErr(404, api.CodeUnknownMoment, 0), true, api.CodeUnknownMoment, 0, false},
		{"409", httpErr(409, api.CodeMediaConflict, 0), true, api.CodeMediaConflict, 0, false},
		{"413", httpErr(413, api.CodeMediaTooLarge, 0), true, api.CodeMediaTooLarge, 0, false},
		{"422", httpErr(422, "x", 0), true, "x", 0, false},
		{"401", httpErr(401, api.CodeUnauthorized, 0), false, api.CodeUnauthorized, 0, false},
		{"403", httpErr(403, api.CodeBadHost, 0), false, api.CodeBadHost, 0, false},
		{"408", httpErr(408, "http_408", 0), false, "http_408", 0, false},
		{"425", httpErr(425, "http_425", 0), false, "http_425", 0, false},
		{"429", httpErr(429, "http_429", 3*time.Second), false, "http_429", 3 * time.Second, false},
		{"500", httpErr(500, api.CodeInternal, 0), false, api.CodeInternal, 0, false},
		{"502", httpErr(502, "http_502", 0), false, "http_502", 0, true},
		{"503", httpErr(503, api.CodeUnavailable, time.Minute), false, api.CodeUnavailable, time.Minute, false},
		{"Refused", fmt.Errorf("health: %w", syscall.ECONNREFUSED), false, "network", 0, true},
		{"EOF", fmt.Errorf("upload: %w", io.ErrUnexpectedEOF), false, "network", 0, true},
		{"503Proxy", httpErr(503, "http_503", 0), false, "http_503", 0, true},
		{"504", httpErr(504, "http_504", 0), false, "http_504", 0, true},
		{"503AskedAWait", httpErr(503, "http_503", 30*time.Second), false, "http_503", 30 * time.Second, false},
		{"Timeout", fmt.Errorf("create moment: %w", context.DeadlineExceeded), false, "network", 0, true},
		{"Permanent", Permanent("missing_file", errors.New("gone")), true, "missing_file", 0, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			v := Classify(tt.err)
			if v.Park != tt.park || v.Code != tt.code || v.RetryAfter != tt.after || v.Message == "" || v.Unreachable != tt.away {
				t.Errorf("Classify = %+v, want park %v code %q retry after %s unreachable %v", v, tt.park, tt.code, tt.after, tt.away)
			}
		})
	}
}
