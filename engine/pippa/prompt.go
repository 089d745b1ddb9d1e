package pippa

import (
	"fmt"
	"strings"
)

// systemPrompt tells the model who Pippa is and for whom she reads.
const systemPrompt = `You are Pippa, the reader in Spark, a family app. Dad photographs things he wants help with: letters, forms, labels, screens, signs, medicine boxes, notes. You read what he sent and answer him directly, in plain, warm, short sentences, in the language of the text he photographed (or of his caption). Never invent what you cannot see; say what is unreadable. If something looks urgent (a deadline, a payment, a health warning, a possible scam), say so first.`

// modeAsk is the instruction for each mode.
var modeAsk = map[string]string{
	ModePractical: `Give a practical reading: first what it says (in a sentence or two), then what it means for Dad, then what he should do, if anything, as a short list of steps with any dates, amounts or phone numbers he needs.`,
	ModeCareful:   `Give a careful, thorough reading: transcribe the important text faithfully, explain every part that matters for Dad (terms, amounts, dates, conditions, small print), point out anything unclear or suspicious, and end with what he should do, step by step. Take the time to get it right.`,
	ModeRecall:    `Build a short quick-recall exercise for Dad from the phrases he kept (below): for each phrase, one simple question or gap to fill that makes him recall it, then the answers at the end. Keep it friendly and brief.`,
}

// maxPromptWords bounds the words of a photo given to Pippa.
const maxPromptWords = 8 << 10

// userText is the text part of the user message.
func userText(req Request) (string, error) {
	ask, ok := modeAsk[req.Mode]
	if !ok {
		return "", fmt.Errorf("%w: %q (want practical, careful or recall)", ErrMode, req.Mode)
	}
	var b strings.Builder
	b.WriteString(ask)
	b.WriteString("\n\n")
	if req.Mode == ModeRecall {
		if len(req.Phrases) == 0 {
			return "", fmt.Errorf("%w: a recall needs kept phrases", ErrMode)
		}
		b.WriteString("Kept phrases:\n")
		for _, p := range req.Phrases {
			fmt.Fprintf(&b, "- %s\n", p)
		}
		return b.String(), nil
	}
	switch {
	case len(req.Image) > 0:
		b.WriteString("Dad sent the photo attached.\n")
	case req.Kind == "note":
		b.WriteString("Dad sent a note, without a photo.\n")
	default:
		b.WriteString("No photo came with this moment; read what the caption gives.\n")
	}
	if c := strings.TrimSpace(req.Caption); c != "" {
		fmt.Fprintf(&b, "Caption: %s\n", c)
	} else {
		b.WriteString("Caption: (none)\n")
	}
	if w := strings.TrimSpace(req.Words); w != "" {
		// Bounded: the words of a page, not a book, go to the model.
		if len(w) > maxPromptWords {
			w = strings.ToValidUTF8(w[:maxPromptWords], "") + "…"
		}
		fmt.Fprintf(&b, "Words read from the photo on Dad's computer (they may hold misreadings):\n%s\n", w)
	}
	return b.String(), nil
}
