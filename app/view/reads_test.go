package view

import (
	"context"
	"errors"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/outbox"
)

// fakeCorpus answers from a list of moments, newest first; away makes
// every read fail as an engine that can't be reached.
type fakeCorpus struct {
	moments []api.Moment
	away    error
}

func (c fakeCorpus) Moments(_ context.Context, limit int, before string) ([]api.Moment, *string, error) {
	if c.away != nil {
		return nil, nil, c.away
	}
	return c.moments, nil, nil
}

func (c fakeCorpus) DeletedMoments(context.Context, int, string) ([]api.Moment, *string, error) {
	return nil, nil, c.away
}

func (c fakeCorpus) Moment(_ context.Context, id string) (*api.Moment, error) {
	if c.away != nil {
		return nil, c.away
	}
	for i := range c.moments {
		if c.moments[i].ID == id {
			return &c.moments[i], nil
		}
	}
	return nil, &api.Error{Status: 404, Code: api.CodeNotFound}
}

func (c fakeCorpus) Turn(context.Context, string) (*api.Turn, error) { return nil, c.away }

func (c fakeCorpus) Phrases(context.Context) ([]api.Phrase, error) { return nil, c.away }

func (c fakeCorpus) Search(context.Context, string, int) (*api.SearchResults, error) {
	return nil, c.away
}

func (c fakeCorpus) LocalMedia(context.Context, string) (*os.File, string, bool) {
	return nil, "", false
}

// reads is a Reads over src with the outbox holding pending captures and
// writes not sent yet.
func reads(src Corpus, pending []Moment, writes ...outbox.Write) Reads {
	return Reads{Source: src,
		Pending: func(context.Context) ([]Moment, error) { return pending, nil },
		Sent:    func(context.Context) []Moment { return nil },
		Unsent: func(context.Context) (Unsent, bool) {
			return Unsent{Writes: writes, WaitsOf: func(*outbox.Write) string { return "family" }, Source: src}, true
		},
	}
}

func ids(ms []Moment) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.ID
	}
	return out
}

// TestReads_Page: the first page puts the captures not in the engine
// first, shows a capture the engine has as the engine's moment, and,
// with the engine away, shows the captures with no error; a moment with
// a delete waiting is left out.
func TestReads_Page(t *testing.T) {
	ctx := context.Background()
	now := time.Now()
	engine := fakeCorpus{moments: []api.Moment{
		{ID: "03", Kind: api.KindPhoto, CreatedAt: now},
		{ID: "02", Kind: api.KindNote, CreatedAt: now},
		{ID: "01", Kind: api.KindNote, CreatedAt: now},
	}}
	pending := []Moment{{ID: "04", Pending: true}, {ID: "03", Pending: true}}
	page, err := reads(engine, pending, outbox.NewDelete("01")).Page(ctx, "", 50)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := ids(page.Moments), []string{"04", "03", "02"}; !slices.Equal(got, want) {
		t.Errorf("page = %v, want %v", got, want)
	}
	if page.Moments[1].Pending {
		t.Errorf("moment 03, which the engine has, shows as pending")
	}

	away := fakeCorpus{away: errors.New("connection refused")}
	page, err = reads(away, pending[:1]).Page(ctx, "", 50)
	if err != nil || !slices.Equal(ids(page.Moments), []string{"04"}) {
		t.Errorf("engine away: page = %v, %v; want the capture and no error", ids(page.Moments), err)
	}
	if _, err := reads(away, nil).Page(ctx, "", 50); err == nil {
		t.Errorf("engine away, nothing waiting: no error")
	}

	notReady := errors.New("not ready")
	r := reads(nil, nil)
	r.SourceErr = notReady
	if _, err := r.Page(ctx, "", 50); !errors.Is(err, notReady) {
		t.Errorf("no source: err = %v, want %v", err, notReady)
	}
}

// TestReads_Moment: a moment the engine does not have comes from the
// outbox; one it has shows what waits to be sent on it.
func TestReads_Moment(t *testing.T) {
	ctx := context.Background()
	engine := fakeCorpus{moments: []api.Moment{{ID: "01", Kind: api.KindNote, Caption: "old", CreatedAt: time.Now()}}}
	r := reads(engine, []Moment{{ID: "02", Pending: true}}, outbox.NewCaption("01", "new", nil))
	m, err := r.Moment(ctx, "02")
	if err != nil || !m.Pending {
		t.Errorf("a capture in the outbox: %+v, %v; want it, pending", m, err)
	}
	m, err = r.Moment(ctx, "01")
	if err != nil || m.Caption != "new" || m.WaitsFor != "family" {
		t.Errorf("a caption waiting: caption %q, waits for %q, %v; want \"new\", \"family\"", m.Caption, m.WaitsFor, err)
	}
	if _, err := r.Moment(ctx, "09"); err == nil {
		t.Errorf("a moment nowhere: no error")
	}
}
