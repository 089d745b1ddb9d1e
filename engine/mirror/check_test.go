package mirror_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/mirror"
	"github.com/sparkfamily/spark/engine/oplog"
)

func TestCheckRecord(t *testing.T) {
	const (
		moment = "01JD0000000000000000000001"
		media  = "01JD0000000000000000000002"
		sha    = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
	)
	caption := "a note"
	long := strings.Repeat("x", 3<<20)
	rec := func(op, reqID string, data any) oplog.Record {
		b, err := json.Marshal(data)
		if err != nil {
			t.Fatal(err)
		}
		return oplog.Record{Seq: 7, At: time.Now(), Op: op, RequestID: reqID, Data: b}
	}
	for _, tc := range []struct {
		name string
		r    oplog.Record
		ok   bool
	}{
		{"create", rec(api.OpMomentCreate, "req-1", mirror.MomentCreate{ID: moment, Kind: api.KindNote, Caption: caption, CopyID: media}), true},
		{"edit", rec(api.OpMomentEdit, "", mirror.MomentEdit{ID: moment, Caption: &caption}), true},
		{"delete", rec(api.OpMomentDelete, "", mirror.MomentDelete{ID: moment}), true},
		{"purge", rec(api.OpMomentPurge, "", mirror.MomentPurge{ID: moment}), true},
		{"purge of a path", rec(api.OpMomentPurge, "", mirror.MomentPurge{ID: "../../media"}), false},
		{"media", rec(api.OpMediaPut, "", mirror.MediaPut{ID: media, MomentID: moment, Role: api.RoleCopy, SHA256: sha, Size: 10, ContentType: "image/jpeg"}), true},
		{"turn start", rec(api.OpTurnStart, "note:1:turn", mirror.TurnStart{ID: "t-1", MomentID: moment, Mode: api.ModePractical}), true},
		{"job turn", rec(api.OpTurnStart, "job-1:0", mirror.TurnStart{ID: "job-1:0", MomentID: moment, Mode: api.ModeCareful, Job: "job-1", Seat: "a"}), true},
		{"turn finish", rec(api.OpTurnFinish, "", mirror.TurnFinish{ID: "t-1", Status: api.TurnFinished, Text: "hello"}), true},
		{"phrase keep", rec(api.OpPhraseKeep, "", mirror.PhraseKeep{ID: "keep:warm tea", Text: "Warm  tea", MomentID: moment}), true},
		{"phrase unkeep", rec(api.OpPhraseUnkeep, "", mirror.PhraseUnkeep{ID: "keep:warm tea"}), true},

		{"path as moment id", rec(api.OpMomentCreate, "", mirror.MomentCreate{ID: "../../etc/passwd", Kind: api.KindNote}), false},
		{"lower-case moment id", rec(api.OpMomentCreate, "", mirror.MomentCreate{ID: strings.ToLower(moment), Kind: api.KindNote}), false},
		{"evil kind", rec(api.OpMomentCreate, "", mirror.MomentCreate{ID: moment, Kind: "evil"}), false},
		{"3 MiB caption", rec(api.OpMomentCreate, "", mirror.MomentCreate{ID: moment, Kind: api.KindNote, Caption: long}), false},
		{"3 MiB caption edit", rec(api.OpMomentEdit, "", mirror.MomentEdit{ID: moment, Caption: &long}), false},
		{"bad request id", rec(api.OpMomentDelete, "a/b", mirror.MomentDelete{ID: moment}), false},
		{"path as media id", rec(api.OpMediaPut, "", mirror.MediaPut{ID: "../x", MomentID: moment, Role: api.RoleCopy, SHA256: sha}), false},
		{"path as sha", rec(api.OpMediaPut, "", mirror.MediaPut{ID: media, MomentID: moment, Role: api.RoleCopy, SHA256: "../../" + sha[6:]}), false},
		{"evil role", rec(api.OpMediaPut, "", mirror.MediaPut{ID: media, MomentID: moment, Role: "evil", SHA256: sha}), false},
		{"negative size", rec(api.OpMediaPut, "", mirror.MediaPut{ID: media, MomentID: moment, Role: api.RoleCopy, SHA256: sha, Size: -1}), false},
		{"huge content type", rec(api.OpMediaPut, "", mirror.MediaPut{ID: media, MomentID: moment, Role: api.RoleCopy, SHA256: sha, ContentType: long}), false},
		{"huge turn id", rec(api.OpTurnStart, "", mirror.TurnStart{ID: long, MomentID: moment, Mode: api.ModePractical}), false},
		{"evil mode", rec(api.OpTurnStart, "", mirror.TurnStart{ID: "t", MomentID: moment, Mode: "evil"}), false},
		{"evil status", rec(api.OpTurnFinish, "", mirror.TurnFinish{ID: "t", Status: "running"}), false},
		{"phrase id not its text's", rec(api.OpPhraseKeep, "", mirror.PhraseKeep{ID: "keep:other", Text: "warm tea"}), false},
		{"unknown op", rec("moment.explode", "", mirror.MomentDelete{ID: moment}), false},
		{"author", func() oplog.Record {
			r := rec(api.OpMomentDelete, "", mirror.MomentDelete{ID: moment})
			r.Author = "Dad's laptop"
			return r
		}(), true},
		{"huge author", func() oplog.Record {
			r := rec(api.OpMomentDelete, "", mirror.MomentDelete{ID: moment})
			r.Author = long
			return r
		}(), false},
		{"data not an object", oplog.Record{Seq: 7, Op: api.OpMomentDelete, Data: json.RawMessage(`"x"`)}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := mirror.CheckRecord(tc.r)
			if tc.ok && err != nil {
				t.Fatalf("CheckRecord = %v, want nil", err)
			}
			if !tc.ok {
				if err == nil || !errors.Is(err, mirror.ErrBadOp) {
					t.Fatalf("CheckRecord = %v, want ErrBadOp", err)
				}
				if len(err.Error()) > 600 {
					t.Errorf("the error is %d bytes long, want a few hundred at most", len(err.Error()))
				}
			}
		})
	}
}
