package api

// MaxCaptionBytes is the longest caption a moment may have, in bytes of
// UTF-8: 64 KiB, room for a long note (some thirty pages of text) and small
// enough that a page of moments stays small. The engine refuses a longer one
// with 400 caption_too_long; the outbox and the window refuse it before it
// is queued, through CheckCaption, so that all three apply one rule.
const MaxCaptionBytes = 64 << 10

// CheckCaption refuses a caption longer than MaxCaptionBytes with
// caption_too_long, in words a person can act on.
func CheckCaption(caption string) error {
	if n := len(caption); n > MaxCaptionBytes {
		return Errorf(CodeCaptionTooLong, "the caption is %d KiB long; a caption holds at most %d KiB (about thirty pages of text): shorten it, or split it over several notes",
			(n+1023)/1024, MaxCaptionBytes>>10)
	}
	return nil
}
