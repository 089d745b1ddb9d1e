package engine

import (
	"strings"
	"testing"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/pippa/pippatest"
)

// TestPutWords (issue 37): the words found in a photo are kept once per
// moment, whoever reads them first; a second reading, or another
// computer's, writes nothing; they are searched, partial words and numbers
// included, and given to Pippa with the photo.
func TestPutWords(t *testing.T) {
	p := pippatest.New(t)
	e := openEngine(t, t.TempDir(), withSeats(p.Config()))
	ctx := ctxT(t)
	dad := WithActor(ctx, Actor{Name: "dads-laptop", Member: "dad"})
	mum := WithActor(ctx, Actor{Name: "mums-phone", Member: "mum"})
	mo, _, err := e.CreateMoment(dad, api.CreateMomentRequest{Kind: api.KindPhoto, Caption: "a letter"})
	if err != nil {
		t.Fatal(err)
	}
	letter := api.Words{Text: "Severn Water\nYour reference RD/7731/Q\nAmount due £41.20", Lang: "eng"}
	before := opCounts(t, e)[api.OpMomentWords]
	// Mum's computer shows dad's photo first: it reads the words.
	if w, created, err := e.PutWords(mum, mo.ID, letter); err != nil || !created || *w != letter {
		t.Fatalf("first words = %+v, %v, %v", w, created, err)
	}
	other := api.Words{Text: "Severn Wafer", Lang: "eng"}
	if w, created, err := e.PutWords(dad, mo.ID, other); err != nil || created || *w != letter {
		t.Fatalf("a second reading = %+v, %v, %v; want the first kept, nothing written", w, created, err)
	}
	if n := opCounts(t, e)[api.OpMomentWords] - before; n != 1 {
		t.Fatalf("%d moment.words ops; want 1", n)
	}
	if got, err := e.Moment(ctx, mo.ID); err != nil || got.Words == nil || *got.Words != letter {
		t.Fatalf("the moment's words = %+v, %v", got.Words, err)
	}
	for _, q := range []string{"7731", "sev wat", "RD", "amount due"} {
		res, err := e.Search(ctx, q, 10)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, r := range res.Results {
			for _, m := range r.Matches {
				if r.Moment.ID == mo.ID && m.Source == "words" && hasHit(m.Parts) {
					found = true
				}
			}
		}
		if !found {
			t.Errorf("search %q does not find the letter by its words: %+v", q, res)
		}
	}
	// Pippa is given the words with the photo.
	turn, _, err := e.StartTurn(dad, mo.ID, api.StartTurnRequest{ClientRequestID: "words-turn", Mode: api.ModePractical})
	if err != nil {
		t.Fatal(err)
	}
	waitTurn(t, e, turn.ID)
	reqs := p.Requests()
	if len(reqs) == 0 || !strings.Contains(reqs[len(reqs)-1].UserText(), "RD/7731/Q") {
		t.Errorf("Pippa was not given the photo's words: %+v", reqs)
	}

	// Refused, with nothing written.
	before = opCounts(t, e)[api.OpMomentWords]
	gone, _, err := e.CreateMoment(dad, api.CreateMomentRequest{Kind: api.KindPhoto})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		id   string
		w    api.Words
		code string
	}{
		{"too long", gone.ID, api.Words{Text: strings.Repeat("a", api.MaxWordsBytes+1), Lang: "eng"}, api.CodeBadWords},
		{"not UTF-8", gone.ID, api.Words{Text: "\xff\xfe", Lang: "eng"}, api.CodeBadWords},
		{"no language", gone.ID, api.Words{Text: "x"}, api.CodeBadWords},
		{"a path for a language", gone.ID, api.Words{Text: "x", Lang: "../eng"}, api.CodeBadWords},
		{"unknown moment", newULID(), api.Words{Text: "x", Lang: "eng"}, api.CodeUnknownMoment},
		{"not an id", "../../etc", api.Words{Text: "x", Lang: "eng"}, api.CodeBadID},
	} {
		_, _, err := e.PutWords(dad, c.id, c.w)
		if api.ErrorCode(err) != c.code {
			t.Errorf("%s: %v (code %q); want %s", c.name, err, api.ErrorCode(err), c.code)
		}
	}
	if n := opCounts(t, e)[api.OpMomentWords] - before; n != 0 {
		t.Fatalf("refused words wrote %d ops", n)
	}
	// A deleted moment takes them, like its uploads.
	if _, err := e.DeleteMoment(dad, gone.ID); err != nil {
		t.Fatal(err)
	}
	if _, created, err := e.PutWords(mum, gone.ID, letter); err != nil || !created {
		t.Fatalf("words of a deleted photo: %v, %v", created, err)
	}
}

func hasHit(parts []api.SearchPart) bool {
	for _, p := range parts {
		if p.Hit {
			return true
		}
	}
	return false
}
