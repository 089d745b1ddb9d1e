package api

// The caps on a turn [extension]. A reading is a few KiB of text; these
// leave room for far longer ones while keeping one moment, and so one
// answer, bounded: the engine refuses an import past them (400
// turn_too_large), clips a reading its own seat returns past them, and
// refuses a turn start, job or import that would take one family member's
// turns on a moment past MaxTurnsPerMoment, or, on another member's
// moment, MaxOthersTurnsPerMoment (409 too_many_turns). docs/API.md lists them.
const (
	// MaxTurnTextBytes is the longest reading, in bytes of UTF-8: 64 KiB,
	// as a caption (some thirty pages of text).
	MaxTurnTextBytes = 64 << 10
	// MaxTurnErrorBytes is the longest error message of a failed turn.
	MaxTurnErrorBytes = 8 << 10
	// MaxSeatBytes is the longest seat name a turn may carry.
	MaxSeatBytes = 256
	// MaxTurnsPerMoment is how many turns of its own family member (and
	// of each admin) one moment may hold: a practical reading, a job per
	// seat and recalls, asked many times over.
	MaxTurnsPerMoment = 100
	// MaxOthersTurnsPerMoment is how many turns each other family member
	// may ask for on a moment: a quarter of its own member's, far more
	// than a person asks for by hand (a reading, a few more, a careful
	// job of a few seats), and small enough that a family of five adds at
	// most 100 turns to one moment between the four others, so that a
	// moment stays within twice the owner's room.
	MaxOthersTurnsPerMoment = MaxTurnsPerMoment / 4
)

// CheckTurnFields refuses a turn's text, error or seat past its cap with
// turn_too_large, naming the field.
func CheckTurnFields(text, errText, seat string) error {
	for _, f := range []struct {
		name string
		n    int
		max  int
	}{{"text", len(text), MaxTurnTextBytes}, {"error", len(errText), MaxTurnErrorBytes}, {"seat", len(seat), MaxSeatBytes}} {
		if f.n > f.max {
			return Errorf(CodeTurnTooLarge, "the turn's %s is %d bytes long; a turn's %s holds at most %d bytes", f.name, f.n, f.name, f.max)
		}
	}
	return nil
}

// ClipUTF8 shortens s to at most max bytes without splitting a character.
func ClipUTF8(s string, max int) string {
	if len(s) <= max {
		return s
	}
	i := max
	// Back up to the start of a character: continuation bytes are
	// 10xxxxxx.
	for i > 0 && s[i]&0xC0 == 0x80 {
		i--
	}
	return s[:i]
}
