package server_test

import (
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/sparkfamily/spark/engine"
	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/auth"
	"github.com/sparkfamily/spark/engine/enginetest"
)

// TestRestoreMoment (issue 35): a deleted moment comes back with POST
// /v1/moments/{id}/restore [extension], once: in the list, in search and
// in a mirror rebuilt from the log. A live moment, a second restore and a
// moment never seen write nothing; another member's device may not.
func TestRestoreMoment(t *testing.T) {
	e := enginetest.Start(t, enginetest.WithoutSeat())
	m := createMoment(t, e, api.CreateMomentRequest{Caption: "letter from the council about the bins"})
	var live api.RestoreResponse
	call(t, e, "POST", "/v1/moments/"+m.ID+"/restore", nil).want(t, http.StatusOK, &live)
	if live.Restored || live.Moment == nil || live.Moment.ID != m.ID {
		t.Fatalf("restoring a live moment = %+v; want it, not restored", live)
	}

	call(t, e, "DELETE", "/v1/moments/"+m.ID, nil).want(t, http.StatusOK, nil)
	var list api.MomentsPage
	call(t, e, "GET", "/v1/moments", nil).want(t, http.StatusOK, &list)
	if len(list.Moments) != 0 {
		t.Fatalf("the list after the delete holds %d moments", len(list.Moments))
	}
	// It waits in Recently deleted [extension].
	call(t, e, "GET", "/v1/moments?deleted=true", nil).want(t, http.StatusOK, &list)
	if len(list.Moments) != 1 || list.Moments[0].ID != m.ID || list.Moments[0].DeletedAt == nil {
		t.Fatalf("Recently deleted = %+v; want the moment, deleted", list.Moments)
	}
	var first, again api.RestoreResponse
	call(t, e, "POST", "/v1/moments/"+m.ID+"/restore", nil).want(t, http.StatusOK, &first)
	call(t, e, "POST", "/v1/moments/"+m.ID+"/restore", nil).want(t, http.StatusOK, &again)
	if !first.Restored || first.Moment.DeletedAt != nil || again.Restored {
		t.Fatalf("restore = %+v, again %+v; want restored once, live", first, again)
	}
	if n := e.OpCount(t, api.OpMomentRestore); n != 1 {
		t.Fatalf("%d moment.restore lines, want 1", n)
	}
	call(t, e, "GET", "/v1/moments", nil).want(t, http.StatusOK, &list)
	if len(list.Moments) != 1 || list.Moments[0].ID != m.ID || list.Moments[0].Caption != m.Caption {
		t.Fatalf("the list after the restore = %+v; want the moment back", list.Moments)
	}
	var found api.SearchResults
	call(t, e, "GET", "/v1/search?q=council", nil).want(t, http.StatusOK, &found)
	if len(found.Results) != 1 {
		t.Errorf("a search after the restore found %d results; want the moment", len(found.Results))
	}

	call(t, e, "GET", "/v1/moments?deleted=true", nil).want(t, http.StatusOK, &list)
	if len(list.Moments) != 0 {
		t.Errorf("Recently deleted after the restore holds %d moments; want none", len(list.Moments))
	}
	call(t, e, "GET", "/v1/moments?deleted=maybe", nil).wantError(t, http.StatusBadRequest, api.CodeBadDeleted)
	call(t, e, "POST", "/v1/moments/"+newID()+"/restore", nil).wantError(t, http.StatusNotFound, api.CodeNotFound)
	call(t, e, "POST", "/v1/moments/not-an-id/restore", nil).wantError(t, http.StatusBadRequest, api.CodeBadID)

	// Who may delete a moment may restore it: not another member's device.
	call(t, e, "DELETE", "/v1/moments/"+m.ID, nil).want(t, http.StatusOK, nil)
	mum := e.AddMemberToken(t, "mum-phone", "mum", auth.ScopeDevice)
	call(t, e, "POST", "/v1/moments/"+m.ID+"/restore", nil, "Authorization", "Bearer "+mum).wantError(t, http.StatusForbidden, api.CodeForbidden)

	// The log folds to the same: deleted again, after its restore.
	e.Close()
	if err := engine.Rebuild(t.Context(), e.Dir, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	e2 := enginetest.Start(t, enginetest.WithoutSeat(), enginetest.WithDir(e.Dir))
	var got api.MomentResponse
	call(t, e2, "GET", "/v1/moments/"+m.ID, nil).want(t, http.StatusOK, &got)
	if got.Moment.DeletedAt == nil || got.Moment.Caption != m.Caption {
		t.Errorf("after a rebuild the moment is %+v; want it deleted again, caption kept", got.Moment)
	}
}

// TestRecentlyDeleted_30Days: a moment deleted 29 days ago is listed in
// Recently deleted; one deleted 31 days ago is not (it can still be
// restored by its id).
func TestRecentlyDeleted_30Days(t *testing.T) {
	clock := time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)
	e := enginetest.Start(t, enginetest.WithoutSeat(), enginetest.WithConfig(func(c *engine.Config) {
		c.Now = func() time.Time { return clock }
	}))
	old := createMoment(t, e, api.CreateMomentRequest{Caption: "deleted in May"})
	call(t, e, "DELETE", "/v1/moments/"+old.ID, nil).want(t, http.StatusOK, nil)
	clock = clock.Add(2 * 24 * time.Hour)
	recent := createMoment(t, e, api.CreateMomentRequest{Caption: "deleted in June"})
	call(t, e, "DELETE", "/v1/moments/"+recent.ID, nil).want(t, http.StatusOK, nil)

	clock = clock.Add(29 * 24 * time.Hour) // 31 days after the first delete
	var list api.MomentsPage
	call(t, e, "GET", "/v1/moments?deleted=true", nil).want(t, http.StatusOK, &list)
	if len(list.Moments) != 1 || list.Moments[0].ID != recent.ID {
		t.Fatalf("Recently deleted 29 and 31 days on = %+v; want only the one deleted 29 days ago", list.Moments)
	}
	var back api.RestoreResponse
	call(t, e, "POST", "/v1/moments/"+old.ID+"/restore", nil).want(t, http.StatusOK, &back)
	if !back.Restored {
		t.Errorf("restoring the moment deleted 31 days ago by its id = %+v; want it back", back)
	}
}
