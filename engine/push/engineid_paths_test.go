package push_test

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sparkfamily/spark/engine/client"
	"github.com/sparkfamily/spark/engine/enginetest"
	"github.com/sparkfamily/spark/engine/push"
	"github.com/sparkfamily/spark/internal/hostile"
	"github.com/sparkfamily/spark/internal/retry"
)

// TestPush_EngineIDsNeverBecomePaths: an engine id is a peer's word. A
// source or target that names itself with a path (issue 25, item 1) must
// not make push write outside its state folder, nor replace a file there.
func TestPush_EngineIDsNeverBecomePaths(t *testing.T) {
	src := enginetest.Start(t)
	fillSource(t, src, 8)
	dst := enginetest.Start(t)
	fast := retry.Backoff{Base: time.Millisecond, Cap: 10 * time.Millisecond}
	ids := []string{
		"../../../../x/evil",
		"/../../../x/settings",
		"../settings",
		"..",
		`..\..\x\evil`,
		"a/b",
		"x\x00y",
		strings.Repeat("A", 4096),
	}
	for _, side := range []string{"source", "target"} {
		for _, id := range ids {
			t.Run(side+"/"+strconv.Quote(id[:min(len(id), 24)]), func(t *testing.T) {
				base := t.TempDir()
				state := filepath.Join(base, "s1", "s2", "push")
				settings := filepath.Join(base, "x", "settings.json")
				if err := os.MkdirAll(filepath.Dir(settings), 0o700); err != nil {
					t.Fatal(err)
				}
				want := []byte(`{"keep":"me"}` + "\n")
				if err := os.WriteFile(settings, want, 0o600); err != nil {
					t.Fatal(err)
				}
				srcURL, dstURL := src.URL, dst.URL
				if side == "source" {
					srcURL = hostile.Renamed(t, src.URL, id)
				} else {
					dstURL = hostile.Renamed(t, dst.URL, id)
				}
				opts := push.Options{From: push.Remote(client.New(srcURL, src.Token, nil), fast),
					Target: client.New(dstURL, dst.Token, nil), StateDir: state, Logger: quiet(), Backoff: fast}
				first, err := push.Run(t.Context(), opts)
				if err != nil {
					t.Fatalf("push: %v", err)
				}
				// The second run starts where the first one's checkpoint says.
				opts.From = push.Remote(client.New(srcURL, src.Token, nil), fast)
				if again, err := push.Run(t.Context(), opts); err != nil || again.StartSeq != first.LastSeq {
					t.Fatalf("second push: resumed from %d, want %d; %v", again.StartSeq, first.LastSeq, err)
				}

				if got, err := os.ReadFile(settings); err != nil || !bytes.Equal(got, want) {
					t.Errorf("%s was replaced: %q, %v", settings, got, err)
				}
				var inState int
				err = filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
					if err != nil || d.IsDir() || p == settings {
						return err
					}
					if filepath.Dir(p) != state {
						t.Errorf("push wrote %s, outside its state folder %s", p, state)
						return nil
					}
					if filepath.Base(p) == "push.lock" {
						return nil // the lock its saves hold, named by no id
					}
					inState++
					if n := len(filepath.Base(p)); n > 255 {
						t.Errorf("checkpoint file name of %d bytes", n)
					}
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				if inState != 1 {
					t.Errorf("%d files in the state folder, want the one checkpoint", inState)
				}
			})
		}
	}
}
