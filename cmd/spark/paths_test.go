package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/enginetest"
	"github.com/sparkfamily/spark/internal/sqlitedb/sqlitedbtest"
)

// TestSyncAndMoments_OddDataFolders: paths are data for the commands too.
// With --data in a folder named with "#", "%", "?", spaces, letters outside
// ASCII, URI punctuation or a long path, spark import, drain, sync (the
// replica: its lock and its mirror) and moments work, and nothing is
// written beside the folder.
func TestSyncAndMoments_OddDataFolders(t *testing.T) {
	for _, d := range sqlitedbtest.OddDirs(t) {
		t.Run(d.Label, func(t *testing.T) {
			base := t.TempDir()
			data := filepath.Join(base, d.Rel)
			eng := enginetest.Start(t)
			vars := map[string]string{"SPARK_ENGINE": eng.URL, "SPARK_TOKEN": eng.Token}
			photo := filepath.Join(t.TempDir(), "p.jpg")
			writeJPEG(t, photo, 90)
			if code, out, errOut := spark(t, nil, "--data", data, "import", photo); code != 0 {
				t.Fatalf("import = %d\n%s\n%s", code, out, errOut)
			}
			if code, out, errOut := spark(t, vars, "--data", data, "drain", "--for", "30s"); code != 0 {
				t.Fatalf("drain = %d\n%s\n%s", code, out, errOut)
			}
			deadline := time.Now().Add(30 * time.Second)
			for eng.OpCount(t, api.OpTurnFinish) < 1 {
				if time.Now().After(deadline) {
					t.Fatal("the reading did not finish")
				}
				time.Sleep(20 * time.Millisecond)
			}
			if code, out, errOut := spark(t, vars, "--data", data, "sync"); code != 0 || !strings.Contains(out, "up to date") {
				t.Fatalf("sync = %d\n%s\n%s", code, out, errOut)
			}
			eng.Close()
			l := momentsJSON(t, data)
			if len(l.Moments) != 1 || l.Moments[0].Pending || !l.Moments[0].CopyCached || l.AsOfSeq == 0 {
				t.Errorf("moments after the sync, engine stopped = %+v; want the one photo, synced", l)
			}
			sqlitedbtest.CheckNoStray(t, base, d.Rel)
		})
	}
}
