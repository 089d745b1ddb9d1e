package main

import (
	"fmt"
	"strings"

	"github.com/sparkfamily/spark/outbox"
)

// The spark command's words for the outbox's codes, in one place: the
// outbox sends codes and facts, and each of its readers words them (the
// window in frontend/src/words.ts, this command here).

// parkedWords says why an entry is parked and what to do: for trouble
// with the entry's own file in the outbox, from its code; for a refusal,
// the engine's own message (detail).
func parkedWords(code, name, detail string) string {
	switch code {
	case outbox.CodeMissingFile:
		return fmt.Sprintf("a file of %s that Spark keeps on this computer to send is gone from the outbox (%s); if you moved it, put it back and retry, otherwise discard it and import the photo again", name, detail)
	case outbox.CodeUnreadableFile:
		return fmt.Sprintf("a file of %s that Spark keeps on this computer to send cannot be read (%s); if you changed the permissions of Spark's folder or put something in its place, undo that and retry, otherwise discard it and import the photo again", name, detail)
	case outbox.CodeChangedFile:
		return fmt.Sprintf("a file of %s that Spark keeps on this computer to send has changed since it was imported (%s); if you put an older copy of Spark's folder back, put the right one back and retry, otherwise discard it and import the photo again", name, detail)
	}
	return detail
}

// leftoversWords is the sentence `spark outbox` says about the outbox's
// folders not removed yet: how many, by why, and that Spark tries again;
// "" when there are none.
func leftoversWords(c outbox.LeftoverCounts) string {
	n := c.Sent + c.Discarded + c.Interrupted
	if n == 0 {
		return ""
	}
	var parts []string
	if c.Sent > 0 {
		parts = append(parts, fmt.Sprintf("%d %s already sent", c.Sent, plural(c.Sent, "photo", "photos")))
	}
	if c.Discarded > 0 {
		parts = append(parts, fmt.Sprintf("%d %s you discarded", c.Discarded, plural(c.Discarded, "photo", "photos")))
	}
	if c.Interrupted > 0 {
		parts = append(parts, fmt.Sprintf("%d %s left from an import that was interrupted", c.Interrupted, plural(c.Interrupted, "copy", "copies")))
	}
	joined := parts[len(parts)-1]
	if len(parts) > 1 {
		joined = strings.Join(parts[:len(parts)-1], ", ") + " and " + joined
	}
	return fmt.Sprintf("%s could not be removed from this computer yet (a program may have %s open). Spark tries again on its own.",
		joined, plural(n, "it", "them"))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
