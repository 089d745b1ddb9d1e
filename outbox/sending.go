package outbox

import "context"

// Sending is an upload under way of one of an entry's files: the bytes
// of it the engine holds, as the engine last told them. It is kept in the
// outbox database (queue.sending_*), written each time the engine tells
// an offset (at most once a part, client.PartSize), so that it is shown
// after a restart too, until the step is done; the next try asks the
// engine anyway.
type Sending struct {
	Step      string `json:"step"`       // StepCopy or StepOriginal
	SentBytes int64  `json:"sent_bytes"` // bytes the engine holds
	Size      int64  `json:"size"`       // the file's size
}

// sending is r's upload under way, nil when none (or r is not waiting).
func (r *row) sending() *Sending {
	if r.SendingStep == "" || r.State != Pending {
		return nil
	}
	return &Sending{Step: r.SendingStep, SentBytes: r.SendingHeld, Size: r.SendingSize}
}

// recordSending stores the bytes the engine holds of the file of entry
// id's step (steps done before it: stepsDone), size bytes long. It is
// not recorded once the step is done or the entry is no longer waiting.
func (o *Outbox) recordSending(ctx context.Context, id string, stepsDone int, step string, held, size int64) {
	if _, err := o.db.ExecContext(ctx, `UPDATE queue SET sending_step = ?, sending_held = ?, sending_size = ?
		WHERE id = ? AND steps = ? AND state = 'pending'`, step, held, size, id, stepsDone); err != nil && ctx.Err() == nil {
		o.logOnce("outbox: cannot record the bytes sent of entry "+id, err)
	}
}
