package mirror

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/sparkfamily/spark/api"
	"github.com/sparkfamily/spark/engine/oplog"
)

// FuzzDecodedCreate: a moment.create folded from the value the engine
// encoded (Record.Decoded) gives the fold exactly the values that decoding
// its Data gives, whatever its strings and taken_at hold.
func FuzzDecodedCreate(f *testing.F) {
	f.Add("01J0000000000000000000000A", api.KindNote, "a caption", "", "", true, int64(1780000000), int64(123456789), 7200)
	f.Add("01J0000000000000000000000A", api.KindPhoto, "café <b>&</b> \u2028 \"quoted\" \\", "01J0000000000000000000000B", "01J0000000000000000000000C", false, int64(0), int64(0), 0)
	f.Add("id", "kind", "invalid \xff\xfe bytes", "\xc3", "x\x00y", true, int64(-62135596800), int64(1), -34200)
	f.Add("", "", "", "", "", true, int64(253402300799), int64(999999999), 1050)
	// A zone offset with seconds, as the local mean times before time zones have.
	f.Add("0", "0", "0", "0", "0", true, int64(0), int64(0), 18)
	f.Fuzz(func(t *testing.T, id, kind, caption, copyID, originalID string, timed bool, sec, nsec int64, offset int) {
		d := MomentCreate{ID: id, Kind: kind, Caption: caption, CopyID: copyID, OriginalID: originalID}
		if timed {
			at := time.Unix(sec, nsec).In(time.FixedZone("", offset%(24*3600)))
			d.TakenAt = &at
		}
		data, err := json.Marshal(&d)
		if err != nil {
			return // the engine refuses what it cannot encode
		}
		r := oplog.Record{Seq: 1, Op: api.OpMomentCreate, Data: data}
		var plain createRun
		if plain.gather([]oplog.Record{r}) != 1 {
			t.Fatalf("the create %s was not gathered", data)
		}
		r.Decoded = &d
		var decoded createRun
		if decoded.gather([]oplog.Record{r}) != 1 {
			t.Fatalf("the create %s with Decoded was not gathered", data)
		}
		want, got := plain.data[0], decoded.data[0]
		if got.ID != want.ID || got.Kind != want.Kind || got.Caption != want.Caption || got.CopyID != want.CopyID || got.OriginalID != want.OriginalID {
			t.Errorf("folded from Decoded: %+v, from Data %s: %+v", got, data, want)
		}
		if g, w := nullTime(got.TakenAt), nullTime(want.TakenAt); g != w {
			t.Errorf("taken_at folded from Decoded: %v, from Data %s: %v", g, data, w)
		}
	})
}
