package app

import (
	"context"
	"errors"
	"strings"

	"github.com/sparkfamily/spark/outbox"
)

// saveOriginal copies an entry's original into dir through the outbox,
// keeping the entry there. The copy gets the entry's file name, made
// unique, and is synced before it is reported.
func saveOriginal(ob *outbox.Outbox, id, dir string) (string, error) {
	if id == "" || strings.ContainsAny(id, `/\.`) {
		return "", refused(CodeNotOutboxEntry, id)
	}
	ctx := context.Background()
	e, err := ob.Entry(ctx, id)
	if err != nil {
		return "", err
	}
	path, err := ob.ExportOriginal(ctx, id, dir)
	if errors.Is(err, outbox.ErrNoOriginal) {
		return "", refused(CodeOriginalDelivered, e.Name)
	}
	return path, err
}
