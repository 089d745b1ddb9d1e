package server_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/auth"
	"github.com/sparkfamily/spark/engine/enginetest"
)

// household is an engine with Dad's two computers (tokens of the member
// dad), Mum's and the admin token enginetest starts it with (e.Token).
type household struct {
	family
	laptop, desktop, mum string // device tokens
}

func newHousehold(t *testing.T) household {
	t.Helper()
	e := enginetest.Start(t, enginetest.WithoutSeat())
	return household{
		family:  family{e: e},
		laptop:  e.AddMemberToken(t, "dad-laptop", "dad", auth.ScopeDevice),
		desktop: e.AddMemberToken(t, "dad-desktop", "dad", auth.ScopeDevice),
		mum:     e.AddToken(t, "mum", auth.ScopeDevice),
	}
}

// TestMembers_DadsComputers (issue 32, item 11): two device tokens of one
// member (Dad's laptop and desktop) edit and delete each other's moments
// and remove each other's phrases; a token of another member (Mum's) gets
// 403 on them, and nothing of Dad's changes. A moment and a phrase say
// which member added them, never a token's name.
func TestMembers_DadsComputers(t *testing.T) {
	h := newHousehold(t)
	m := h.moment(t, h.laptop, "photo of the boiler")
	if m.Member != "dad" {
		t.Errorf("the moment's member = %q, want dad", m.Member)
	}
	var pr api.PhraseResponse
	h.as(t, h.laptop, "POST", "/v1/phrases", api.KeepPhraseRequest{Text: "bleed the radiators", MomentID: m.ID}).want(t, http.StatusCreated, &pr)
	if pr.Phrase.Member != "dad" {
		t.Errorf("the phrase's member = %q, want dad", pr.Phrase.Member)
	}

	// Mum's token may not change Dad's.
	hacked := "mum was here"
	e := h.as(t, h.mum, "PATCH", "/v1/moments/"+m.ID, api.EditMomentRequest{Caption: &hacked}).wantError(t, http.StatusForbidden, api.CodeForbidden)
	if !strings.Contains(e.Message, "another family member") {
		t.Errorf("the refusal says %q; want it to speak of another family member", e.Message)
	}
	h.as(t, h.mum, "DELETE", "/v1/moments/"+m.ID, nil).wantError(t, http.StatusForbidden, api.CodeForbidden)
	h.as(t, h.mum, "DELETE", "/v1/phrases/"+url.PathEscape(pr.Phrase.ID), nil).wantError(t, http.StatusForbidden, api.CodeForbidden)

	// Dad's desktop may change what his laptop added, and the other way.
	caption := "the boiler, serviced"
	var mr api.MomentResponse
	h.as(t, h.desktop, "PATCH", "/v1/moments/"+m.ID, api.EditMomentRequest{Caption: &caption}).want(t, http.StatusOK, &mr)
	if mr.Moment.Caption != caption {
		t.Errorf("after the desktop's edit the caption is %q", mr.Moment.Caption)
	}
	var removed api.RemovedResponse
	h.as(t, h.desktop, "DELETE", "/v1/phrases/"+url.PathEscape(pr.Phrase.ID), nil).want(t, http.StatusOK, &removed)
	if !removed.Removed {
		t.Error("the desktop did not remove the laptop's phrase")
	}
	d := h.moment(t, h.desktop, "a note from the desktop")
	h.as(t, h.laptop, "PATCH", "/v1/moments/"+d.ID, api.EditMomentRequest{Caption: &caption}).want(t, http.StatusOK, nil)
	h.as(t, h.laptop, "POST", "/v1/phrases", api.KeepPhraseRequest{Text: "call the bank"}).want(t, http.StatusCreated, nil)
	h.as(t, h.desktop, "DELETE", "/v1/phrases/"+url.PathEscape("keep:call the bank"), nil).want(t, http.StatusOK, &removed)
	var deleted api.DeleteResponse
	h.as(t, h.laptop, "DELETE", "/v1/moments/"+d.ID, nil).want(t, http.StatusOK, &deleted)
	h.as(t, h.desktop, "DELETE", "/v1/moments/"+m.ID, nil).want(t, http.StatusOK, &deleted)
	if !deleted.Deleted {
		t.Error("the desktop did not delete the laptop's moment")
	}

	// Mum's own are hers: Dad's computers may not change them.
	mine := h.moment(t, h.mum, "school trip")
	h.as(t, h.laptop, "DELETE", "/v1/moments/"+mine.ID, nil).wantError(t, http.StatusForbidden, api.CodeForbidden)
}

// TestOps_Member: /v1/ops names each op's token (author) and member.
func TestOps_Member(t *testing.T) {
	h := newHousehold(t)
	h.moment(t, h.laptop, "from the laptop")
	h.moment(t, h.mum, "from mum")
	var page api.OpsPage
	h.as(t, h.mum, "GET", "/v1/ops", nil).want(t, http.StatusOK, &page)
	var got []string
	for _, op := range page.Ops {
		got = append(got, op.Author+"/"+op.Member)
	}
	if want := []string{"dad-laptop/dad", "mum/mum"}; strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("ops' author/member = %q, want %q", got, want)
	}
}

// TestMemberHeader: an admin token writes for the member its Spark-Member
// header names (push keeping who added what): the op's author is the
// admin token's name, its member and the moment's the one named, and that
// member's devices may change it. A device token's header is ignored: it
// writes as its own member. A header that is no member's name is refused.
func TestMemberHeader(t *testing.T) {
	h := newHousehold(t)
	var mr api.MomentResponse
	call(t, h.e, "POST", "/v1/moments", api.CreateMomentRequest{Kind: api.KindNote, Caption: "moved from the old computer"}, api.MemberHeader, "dad").
		want(t, http.StatusCreated, &mr)
	if mr.Moment.Member != "dad" {
		t.Errorf("the admin's moment for dad has the member %q", mr.Moment.Member)
	}
	caption := "Dad's, moved"
	h.as(t, h.desktop, "PATCH", "/v1/moments/"+mr.Moment.ID, api.EditMomentRequest{Caption: &caption}).want(t, http.StatusOK, nil)

	// Mum's device cannot write as Dad.
	var forged api.MomentResponse
	call(t, h.e, "POST", "/v1/moments", api.CreateMomentRequest{Kind: api.KindNote, Caption: "as dad?"},
		"Authorization", "Bearer "+h.mum, api.MemberHeader, "dad").want(t, http.StatusCreated, &forged)
	if forged.Moment.Member != "mum" {
		t.Errorf("mum's device writing with %s: dad made a moment of %q, want mum", api.MemberHeader, forged.Moment.Member)
	}
	h.as(t, h.laptop, "DELETE", "/v1/moments/"+forged.Moment.ID, nil).wantError(t, http.StatusForbidden, api.CodeForbidden)

	var page api.OpsPage
	h.as(t, h.e.Token, "GET", "/v1/ops", nil).want(t, http.StatusOK, &page)
	if op := page.Ops[0]; op.Author != "enginetest" || op.Member != "dad" {
		t.Errorf("the admin's op for dad: author %q, member %q; want enginetest, dad", op.Author, op.Member)
	}

	call(t, h.e, "POST", "/v1/moments", api.CreateMomentRequest{Kind: api.KindNote}, api.MemberHeader, strings.Repeat("d", auth.MaxNameLen+1)).
		wantError(t, http.StatusBadRequest, api.CodeBadMember)
	if n := h.e.OpCount(t, api.OpMomentCreate); n != 2 {
		t.Errorf("%d moments created, want 2: a bad %s writes nothing", n, api.MemberHeader)
	}
}

// TestMetrics_AdminOnly (issue 32, item 10): /metrics answers an admin
// token; a device token gets 403 with words that say who may read them.
func TestMetrics_AdminOnly(t *testing.T) {
	h := newHousehold(t)
	e := h.as(t, h.laptop, "GET", "/metrics", nil).wantError(t, http.StatusForbidden, api.CodeForbidden)
	if !strings.Contains(e.Message, "admin token") {
		t.Errorf("the refusal says %q; want it to name the admin token", e.Message)
	}
	a := h.as(t, h.e.Token, "GET", "/metrics", nil)
	a.want(t, http.StatusOK, nil)
	if !strings.Contains(string(a.Body), "spark_engine_ops_appended_total") {
		t.Errorf("an admin's /metrics: %.200s", a.Body)
	}
}
