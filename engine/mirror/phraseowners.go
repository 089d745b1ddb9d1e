package mirror

import (
	"context"
	"database/sql"
	"fmt"
)

// derivePhraseOwners gives the kept phrases of a version-5 mirror the
// owners a fold of their phrase.keep gives: the member of the op at each
// phrase's seq, read from the log through members. A mirror with no kept
// phrase needs no log; one with phrases and no members is stale (its
// owners cannot be told), and is rebuilt or started again.
func derivePhraseOwners(ctx context.Context, tx *sql.Tx, path string, members MembersFunc) error {
	rows, err := tx.QueryContext(ctx, "SELECT id, seq FROM phrases ORDER BY seq")
	if err != nil {
		return err
	}
	bySeq := map[uint64]string{}
	var seqs []uint64
	for rows.Next() {
		var id string
		var seq int64
		if err := rows.Scan(&id, &seq); err != nil {
			rows.Close()
			return err
		}
		bySeq[uint64(seq)] = id
		seqs = append(seqs, uint64(seq))
	}
	if err := rows.Close(); err != nil {
		return err
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if len(seqs) == 0 {
		return nil
	}
	if members == nil {
		return &StaleError{Path: path, Have: SchemaVersion - 1, Want: SchemaVersion}
	}
	owners, err := members(ctx, seqs)
	if err != nil {
		return fmt.Errorf("read who kept the phrases from the log: %w", err)
	}
	for _, seq := range seqs {
		owner, ok := owners[seq]
		if !ok {
			return fmt.Errorf("the log holds no op %d, which kept the phrase %q", seq, bySeq[seq])
		}
		if _, err := tx.ExecContext(ctx, "UPDATE phrases SET owner = ? WHERE id = ?", owner, bySeq[seq]); err != nil {
			return fmt.Errorf("phrase %q: %w", bySeq[seq], err)
		}
	}
	return nil
}
