package app

import (
	"testing"

	"github.com/sparkfamily/spark/outbox"
)

// The Outbox's entry gives the bytes the engine holds of an original on
// its way, of the original's size; nothing for a small copy's upload or
// when nothing is on its way.
func TestEntryView_OriginalSent(t *testing.T) {
	a := &App{}
	for _, tt := range []struct {
		name      string
		sending   *outbox.Sending
		sent, all int64
	}{
		{"Original", &outbox.Sending{Step: outbox.StepOriginal, SentBytes: 12 << 20, Size: 34 << 20}, 12 << 20, 34 << 20},
		{"Copy", &outbox.Sending{Step: outbox.StepCopy, SentBytes: 1 << 20, Size: 2 << 20}, 0, 34 << 20},
		{"Nothing", nil, 0, 34 << 20},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := &outbox.Entry{ID: "e1", State: outbox.Pending, Size: 34 << 20, Sending: tt.sending}
			v := a.entryView(e)
			if v.OriginalSent != tt.sent || v.BytesTotal != tt.all {
				t.Errorf("originalSent %d of %d, want %d of %d", v.OriginalSent, v.BytesTotal, tt.sent, tt.all)
			}
		})
	}
}
