package mirror

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"

	"github.com/sparkfamily/spark/engine/api"
)

// FailCode is the error_code a turn holds: none unless it failed; the code
// its turn.finish logged; for a failure logged before codes were (or
// imported from an engine that had none), the code its error's words give.
func FailCode(status, code, errText string) string {
	switch {
	case status != api.TurnFailed:
		return ""
	case code != "":
		return code
	}
	return legacyFailCode(errText)
}

// The words of the failures the engine logged before their codes were, as
// the window read them then (frontend/src/words.ts's readingError up to
// schema version 4), in that order: the first that matches names the
// code. Only errors logged without a code are read this way, once, as they
// are folded; nothing reads an error's words after that.
var legacyFailWords = []struct {
	re   *regexp.Regexp
	code string
}{
	{regexp.MustCompile(`(?i)did not answer|connection refused|no such host|timeout|deadline|unreachable`), api.ReadPippaUnreachable},
	{regexp.MustCompile(`(?i)refused the request|401|403|api key|unauthori[sz]ed`), api.ReadPippaRefused},
	{regexp.MustCompile(`(?i)larger than a small copy`), api.ReadPhotoTooLarge},
	{regexp.MustCompile(`(?i)no text|no choices|not an OpenAI|neither text`), api.ReadPippaAnswerUnreadable},
}

func legacyFailCode(errText string) string {
	for _, w := range legacyFailWords {
		if w.re.MatchString(errText) {
			return w.code
		}
	}
	return api.ReadFailed
}

// deriveErrorCodes gives the failed turns of a version-4 mirror the codes
// a fold of their turn.finish gives (FailCode: none was logged then).
func deriveErrorCodes(ctx context.Context, tx *sql.Tx) error {
	rows, err := tx.QueryContext(ctx, "SELECT id, error FROM turns WHERE status = ?", api.TurnFailed)
	if err != nil {
		return err
	}
	codes := map[string]string{}
	for rows.Next() {
		var id, errText string
		if err := rows.Scan(&id, &errText); err != nil {
			rows.Close()
			return err
		}
		codes[id] = FailCode(api.TurnFailed, "", errText)
	}
	if err := rows.Close(); err != nil {
		return err
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for id, code := range codes {
		if _, err := tx.ExecContext(ctx, "UPDATE turns SET error_code = ? WHERE id = ?", code, id); err != nil {
			return fmt.Errorf("turn %s: %w", id, err)
		}
	}
	return nil
}
