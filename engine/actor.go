package engine

import (
	"context"

	"github.com/sparkfamily/spark/engine/api"
)

// Actor is who asks the engine for something: the name of the token a
// request came with, and whether that token is admin-scoped. The HTTP face
// puts it in each request's context (WithActor); a call with none in its
// context is the engine's own process (its commands, its tests, the turn
// runner), which may do everything and writes ops with no author.
type Actor struct {
	Name  string
	Admin bool
}

type actorKey struct{}

// WithActor returns ctx carrying a.
func WithActor(ctx context.Context, a Actor) context.Context {
	return context.WithValue(ctx, actorKey{}, a)
}

// actorOf returns the actor of ctx: the engine itself, admin with no name,
// when ctx carries none.
func actorOf(ctx context.Context) Actor {
	if a, ok := ctx.Value(actorKey{}).(Actor); ok {
		return a
	}
	return Actor{Admin: true}
}

// mayChange reports whether a may change (edit, delete, import onto) what
// owner created. A device token may change only its own; an admin
// anything. What was written before ops had authors (owner "") was written
// by tokens that were all admin, and only an admin may change it.
func (a Actor) mayChange(owner string) bool {
	return a.Admin || (owner != "" && owner == a.Name)
}

// mayAnswer reports whether a request id, a job or a recall made by owner
// may answer a's request for it: it was made by a itself, or before ops had
// authors, or a is admin. An id another token made is never a device's: it
// would hand it someone else's write (a job started on another moment, a
// forged reading). An admin may be answered with anything (the app's own
// engine re-mints its admin token under a new name when its settings lose
// it, and its outbox then repeats the old token's writes).
func (a Actor) mayAnswer(owner string) bool {
	return a.Admin || owner == "" || owner == a.Name
}

// notYours is the error of a device token refused a change to what
// another token created.
func notYours(what, id string) error {
	return api.Errorf(api.CodeForbidden, "%s %s was created by another device; this device's token may change only what it created (an admin token may change anything)", what, id)
}
