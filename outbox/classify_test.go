package outbox

import (
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
	}{
		{"400", httpErr(400, api.CodeBadID, 0), true, api.CodeBadID, 0},
		{"404", httpErr(404, api.CodeUnknownMoment, 0), true, api.CodeUnknownMoment, 0},
		{"409", httpErr(409, api.CodeMediaConflict, 0), true, api.CodeMediaConflict, 0},
		{"413", httpErr(413, api.CodeMediaTooLarge, 0), true, api.CodeMediaTooLarge, 0},
		{"422", httpErr(422, "x", 0), true, "x", 0},
		{"401", httpErr(401, api.CodeUnauthorized, 0), false, api.CodeUnauthorized, 0},
		{"403", httpErr(403, api.CodeBadHost, 0), false, api.CodeBadHost, 0},
		{"408", httpErr(408, "http_408", 0), false, "http_408", 0},
		{"425", httpErr(425, "http_425", 0), false, "http_425", 0},
		{"429", httpErr(429, "http_429", 3*time.Second), false, "http_429", 3 * time.Second},
		{"500", httpErr(500, api.CodeInternal, 0), false, api.CodeInternal, 0},
		{"502", httpErr(502, "http_502", 0), false, "http_502", 0},
		{"503", httpErr(503, api.CodeUnavailable, time.Minute), false, api.CodeUnavailable, time.Minute},
		{"Refused", fmt.Errorf("health: %w", syscall.ECONNREFUSED), false, "network", 0},
		{"EOF", fmt.Errorf("upload: %w", io.ErrUnexpectedEOF), false, "network", 0},
		{"Permanent", Permanent("missing_file", errors.New("gone")), true, "missing_file", 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			v := Classify(tt.err)
			if v.Park != tt.park || v.Code != tt.code || v.RetryAfter != tt.after || v.Message == "" {
				t.Errorf("Classify = %+v, want park %v code %q retry after %s", v, tt.park, tt.code, tt.after)
			}
		})
	}
}
