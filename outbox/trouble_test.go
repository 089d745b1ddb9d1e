package outbox

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path/filepath"
	"syscall"
	"testing"
)

// TestClassify_TroubleCodes checks that a failure which is not the
// engine's answer waits under a code naming what failed, rather than
// being called network trouble.
func TestClassify_TroubleCodes(t *testing.T) {
	db, err := sql.Open("sqlite", "file:"+filepath.ToSlash(filepath.Join(t.TempDir(), "x.db")))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_, sqlErr := db.ExecContext(context.Background(), "UPDATE nowhere SET x = 1")
	if sqlErr == nil {
		t.Fatal("an update of a missing table succeeded")
	}
	var syntaxErr error = &json.SyntaxError{Offset: 3}
	for _, tt := range []struct {
		name string
		err  error
		code string
	}{
		{"Network", fmt.Errorf("create moment X: cannot reach the engine: %w", &url.Error{Op: "Post", URL: "http://127.0.0.1:1", Err: syscall.ECONNREFUSED}), CodeNetwork},
		{"Database", fmt.Errorf("record step copy: %w", sqlErr), CodeOutboxDatabase},
		{"File", fmt.Errorf("open the copy of a.jpg: %w", &fs.PathError{Op: "open", Path: "/outbox/files/x/copy.jpg", Err: syscall.EACCES}), CodeOutboxFile},
		{"BadAnswer", fmt.Errorf("create moment X: reading the engine's answer (201): %w", syntaxErr), CodeBadAnswer},
		{"Other", errors.New("something else"), CodeFailed},
	} {
		t.Run(tt.name, func(t *testing.T) {
			v := Classify(tt.err)
			if v.Park || v.Code != tt.code || v.Message != tt.err.Error() {
				t.Errorf("Classify(%v) = %+v, want waiting with code %q", tt.err, v, tt.code)
			}
		})
	}
}
