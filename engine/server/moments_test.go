package server_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/enginetest"
)

func TestCreateMoment(t *testing.T) {
	e := enginetest.Start(t, enginetest.WithoutSeat())
	t.Run("Created", func(t *testing.T) {
		id := newID()
		taken := "2026-05-01T14:30:00+02:00"
		var mr api.MomentResponse
		call(t, e, "POST", "/v1/moments", fmt.Sprintf(`{"id":%q,"client_request_id":"c-1","kind":"photo","caption":"a walk","taken_at":%q,"future_field":1}`, strings.ToLower(id), taken)).
			want(t, http.StatusCreated, &mr)
		m := mr.Moment
		if mr.Created == nil || !*mr.Created {
			t.Fatalf("created %v, want true", mr.Created)
		}
		if m.ID != id || m.Kind != "photo" || m.Caption != "a walk" || m.TakenAt == nil || m.TakenAt.Format(time.RFC3339) != taken {
			t.Fatalf("moment %+v, want id %s (upper-cased), the kind, caption and taken_at sent", m, id)
		}
	})
	t.Run("EngineMintsID", func(t *testing.T) {
		m := createMoment(t, e, api.CreateMomentRequest{ClientRequestID: "c-2"})
		if _, err := api.ParseULID(m.ID); err != nil {
			t.Fatalf("minted id %q: %v", m.ID, err)
		}
	})
}

func TestMoments(t *testing.T) {
	e := enginetest.Start(t, enginetest.WithoutSeat())
	var ids []string
	for range 3 {
		ids = append(ids, createMoment(t, e, api.CreateMomentRequest{ID: newID()}).ID)
	}
	var page api.MomentsPage
	call(t, e, "GET", "/v1/moments?limit=2", nil).want(t, http.StatusOK, &page)
	if len(page.Moments) != 2 || page.Moments[0].ID != ids[2] || page.Moments[1].ID != ids[1] || page.Next == nil {
		t.Fatalf("first page %+v, want the two newest and a cursor", page)
	}
	var rest api.MomentsPage
	call(t, e, "GET", "/v1/moments?limit=2&before="+*page.Next, nil).want(t, http.StatusOK, &rest)
	if len(rest.Moments) != 1 || rest.Moments[0].ID != ids[0] || rest.Next != nil {
		t.Fatalf("second page %+v, want the oldest and no cursor", rest)
	}
	// The default limit and an empty list, as JSON arrays.
	call(t, e, "DELETE", "/v1/moments/"+ids[0], nil).want(t, http.StatusOK, nil)
	var all api.MomentsPage
	a := call(t, e, "GET", "/v1/moments?before="+ids[1], nil)
	a.want(t, http.StatusOK, &all)
	if len(all.Moments) != 0 || !strings.Contains(string(a.Body), `"moments":[]`) {
		t.Fatalf("page %s, want an empty moments array (deleted ones are not listed)", a.Body)
	}
}

func TestGetMoment(t *testing.T) {
	e := enginetest.Start(t, enginetest.WithoutSeat())
	m := createMoment(t, e, api.CreateMomentRequest{Caption: "hello"})
	var got api.MomentResponse
	call(t, e, "GET", "/v1/moments/"+strings.ToLower(m.ID), nil).want(t, http.StatusOK, &got)
	if diff := cmp.Diff(m, got.Moment); diff != "" {
		t.Fatalf("moment (-created +got):\n%s", diff)
	}
	if got.Created != nil {
		t.Errorf("GET answers created=%v; want no created field", *got.Created)
	}
	call(t, e, "GET", "/v1/moments/"+newID(), nil).wantError(t, http.StatusNotFound, api.CodeNotFound)

	// Deleted moments are still served, with deleted_at.
	call(t, e, "DELETE", "/v1/moments/"+m.ID, nil).want(t, http.StatusOK, nil)
	call(t, e, "GET", "/v1/moments/"+m.ID, nil).want(t, http.StatusOK, &got)
	if got.Moment.DeletedAt == nil {
		t.Fatalf("deleted moment %+v has no deleted_at", got.Moment)
	}
}

func TestEditMoment(t *testing.T) {
	e := enginetest.Start(t, enginetest.WithoutSeat())
	m := createMoment(t, e, api.CreateMomentRequest{Caption: "before"})
	var got api.MomentResponse
	call(t, e, "PATCH", "/v1/moments/"+m.ID, `{"caption":"after","taken_at":"2026-01-02T03:04:05Z"}`).want(t, http.StatusOK, &got)
	if got.Moment.Caption != "after" || got.Moment.TakenAt == nil || !got.Moment.TakenAt.Equal(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)) {
		t.Fatalf("edited moment %+v", got.Moment)
	}
	call(t, e, "PATCH", "/v1/moments/"+newID(), `{"caption":"x"}`).wantError(t, http.StatusNotFound, api.CodeNotFound)
}

func TestDeleteMoment(t *testing.T) {
	e := enginetest.Start(t, enginetest.WithoutSeat())
	m := createMoment(t, e, api.CreateMomentRequest{})
	var d api.DeleteResponse
	call(t, e, "DELETE", "/v1/moments/"+m.ID, nil).want(t, http.StatusOK, &d)
	if !d.Deleted {
		t.Fatal("first delete: deleted false")
	}
	call(t, e, "DELETE", "/v1/moments/"+newID(), nil).wantError(t, http.StatusNotFound, api.CodeNotFound)
}
