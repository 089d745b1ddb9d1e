package server_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/enginetest"
)

// The phrase id's ceiling of 80 characters counts characters, not bytes: a
// 75-letter phrase in Greek or Chinese is kept, repeated, listed and
// removed like a 75-letter English one, and one letter more is refused.
func TestPhrases_LengthInCharacters(t *testing.T) {
	e := enginetest.Start(t, enginetest.WithoutSeat())
	for _, letter := range []string{"a", "λ", "银"} {
		t.Run(letter, func(t *testing.T) {
			text := strings.Repeat(letter, 75)
			var pr, again api.PhraseResponse
			call(t, e, "POST", "/v1/phrases", fmt.Sprintf(`{"text":%q}`, text)).want(t, http.StatusCreated, &pr)
			if pr.Phrase.ID != "keep:"+text || !pr.Created {
				t.Fatalf("kept %+v created %v, want id keep:%s", pr.Phrase, pr.Created, text)
			}
			call(t, e, "POST", "/v1/phrases", fmt.Sprintf(`{"text":%q}`, " "+text+" ")).want(t, http.StatusOK, &again)
			if again.Created || again.Phrase.ID != pr.Phrase.ID {
				t.Fatalf("repeat %+v created %v", again.Phrase, again.Created)
			}
			var rm api.RemovedResponse
			call(t, e, "DELETE", "/v1/phrases/"+url.PathEscape(pr.Phrase.ID), nil).want(t, http.StatusOK, &rm)
			if !rm.Removed {
				t.Fatal("removed false for a kept phrase")
			}
			call(t, e, "POST", "/v1/phrases", fmt.Sprintf(`{"text":%q}`, text+letter)).wantError(t, http.StatusBadRequest, api.CodeBadID)
			call(t, e, "DELETE", "/v1/phrases/"+url.PathEscape("keep:"+text+letter), nil).wantError(t, http.StatusBadRequest, api.CodeBadID)
		})
	}
	if n := e.OpCount(t, api.OpPhraseKeep); n != 3 {
		t.Fatalf("%d phrase.keep lines, want 3", n)
	}
}
