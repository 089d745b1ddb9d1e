package backup

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/internal/atomicfile"
)

// CheckFile, in the engine's data folder, keeps the last drill of the
// folder's off-site copy, so that a Keeper started again neither forgets
// it nor drills again at once, and so that `spark-engine backup check
// --data DIR` can tell a running serve:
//
//	{"format": 1, "target": "s3://b/p at https://...", "check": {api.BackupCheck},
//	 "seq": N, "problem": CODE, "reason": WORDS}
const CheckFile = "backup-check.json"

// checkFormat is the version of CheckFile this code writes and reads.
const checkFormat = 1

// checkRecord is CheckFile's content.
type checkRecord struct {
	Format int `json:"format"`
	// Target names the copy drilled (Target.String()): a drill of another
	// target says nothing of this one's.
	Target string          `json:"target"`
	Check  api.BackupCheck `json:"check"`
	// Seq is the last op the drill restored: the copy held at least that
	// much then (0 for a failed drill).
	Seq uint64 `json:"seq,omitempty"`
	// Problem and Reason tell why a drill failed.
	Problem string `json:"problem,omitempty"`
	Reason  string `json:"reason,omitempty"`
}

// RecordCheck keeps the drill c of the copy in t (its failure err, if
// any) as the last in the data folder dir, for a Keeper on that folder,
// running or started later, to take.
func RecordCheck(dir string, t Target, c *api.BackupCheck, err error) error {
	rec := &checkRecord{Format: checkFormat, Target: t.String(), Check: *c}
	if err != nil {
		rec.Problem, rec.Reason = ProblemOf(err), err.Error()
	}
	return writeCheckRecord(dir, rec)
}

func writeCheckRecord(dir string, rec *checkRecord) error {
	b, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, CheckFile), append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("backup: keep the drill's result in %s: %w", dir, err)
	}
	return nil
}

// readCheckRecord reads dir's CheckFile; nil, nil when there is none.
func readCheckRecord(dir string) (*checkRecord, error) {
	b, err := atomicfile.ReadFile(filepath.Join(dir, CheckFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("backup: %w", err)
	}
	var rec checkRecord
	if err := json.Unmarshal(b, &rec); err != nil {
		return nil, fmt.Errorf("backup: %s is damaged: %w", filepath.Join(dir, CheckFile), err)
	}
	if rec.Format != checkFormat {
		return nil, fmt.Errorf("backup: %s has format %d, this Spark reads %d", filepath.Join(dir, CheckFile), rec.Format, checkFormat)
	}
	return &rec, nil
}
