package engine

import (
	"strings"
	"testing"

	"github.com/sparkfamily/spark/engine/api"
)

// TestRemovePhrase_Members: a phrase is its keeper's member's: another
// member's device may not remove it (and is told whose it is), any token
// of the keeper's member may, and so may an admin. Keeping it again,
// whoever does, returns the mark as it is.
func TestRemovePhrase_Members(t *testing.T) {
	e := openEngine(t, t.TempDir())
	ctx := ctxT(t)
	laptop := WithActor(ctx, Actor{Name: "dad-laptop", Member: "dad"})
	desktop := WithActor(ctx, Actor{Name: "dad-desktop", Member: "dad"})
	mum := WithActor(ctx, Actor{Name: "mum"})
	admin := WithActor(ctx, Actor{Name: "me", Admin: true})

	p, created, err := e.KeepPhrase(laptop, api.KeepPhraseRequest{Text: "call the bank"})
	if err != nil || !created || p.Member != "dad" {
		t.Fatalf("KeepPhrase = %+v, %v, %v; want a new mark of dad", p, created, err)
	}
	again, created, err := e.KeepPhrase(mum, api.KeepPhraseRequest{Text: "Call the  bank"})
	if err != nil || created || again.Member != "dad" {
		t.Fatalf("mum keeping dad's phrase again = %+v, %v, %v; want dad's mark, not created", again, created, err)
	}
	_, err = e.RemovePhrase(mum, p.ID)
	wantCode(t, err, api.CodeForbidden)
	if !strings.Contains(err.Error(), "dad") || !strings.Contains(err.Error(), "another family member") {
		t.Errorf("the refusal says %q; want whose phrase it is", err)
	}
	if ok, err := e.RemovePhrase(desktop, p.ID); err != nil || !ok {
		t.Fatalf("dad's desktop removing dad's phrase: %v, %v", ok, err)
	}
	if _, _, err := e.KeepPhrase(mum, api.KeepPhraseRequest{Text: "school trip money"}); err != nil {
		t.Fatal(err)
	}
	if ok, err := e.RemovePhrase(admin, "keep:school trip money"); err != nil || !ok {
		t.Fatalf("an admin removing mum's phrase: %v, %v", ok, err)
	}
}
