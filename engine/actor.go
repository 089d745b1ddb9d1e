package engine

import (
	"context"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/engine/oplog"
)

// Actor is who asks the engine for something: the name of the token a
// request came with, the family member that token belongs to, and whether
// the token is admin-scoped. The HTTP face puts it in each request's
// context (WithActor); a call with none in its context is the engine's own
// process (its commands, its tests, the turn runner), which may do
// everything and writes ops with no author.
//
// Ownership is a member's, never a token's: every token of one member (Dad's
// laptop and Dad's desktop) may change what any of them made. A token made
// without a member belongs to the member of its own name, so what a token
// wrote before members existed is its member's.
type Actor struct {
	Name   string // the token's name
	Member string // the member the token belongs to; "" means Name
	Admin  bool
}

type actorKey struct{}

// WithActor returns ctx carrying a.
func WithActor(ctx context.Context, a Actor) context.Context {
	return context.WithValue(ctx, actorKey{}, a)
}

// ActorFrom returns the actor WithActor put in ctx, and false when ctx
// carries none (the engine's own process).
func ActorFrom(ctx context.Context) (Actor, bool) {
	a, ok := ctx.Value(actorKey{}).(Actor)
	return a, ok
}

// MemberOf is the family member a acts for: its Member, or its token's
// name when it has none.
func (a Actor) MemberOf() string { return a.member() }

// actorOf returns the actor of ctx: the engine itself, admin with no name,
// when ctx carries none.
func actorOf(ctx context.Context) Actor {
	if a, ok := ctx.Value(actorKey{}).(Actor); ok {
		return a
	}
	return Actor{Admin: true}
}

// member is the family member a acts for: its Member, or its token's name
// when it has none.
func (a Actor) member() string {
	if a.Member != "" {
		return a.Member
	}
	return a.Name
}

// sign names a as the author of rec: its token's name, and its member
// when that is not the name (a record whose member is its author is
// written as before members existed; oplog.Record.MemberOf).
func (a Actor) sign(rec *oplog.Record) {
	rec.Author, rec.Member = a.Name, ""
	if m := a.member(); m != a.Name {
		rec.Member = m
	}
}

// mayChange reports whether a may change (edit, delete, import onto,
// upload onto) what owner, a member, made. A device token may change only
// what its own member made; an admin anything. What was written before ops
// had authors (owner "") was written by tokens that were all admin, and
// only an admin may change it.
func (a Actor) mayChange(owner string) bool {
	return a.Admin || (owner != "" && owner == a.member())
}

// mayAnswer reports whether a request id, a job or a recall made by owner
// (a member) may answer a's request for it: it was made by a's member, or
// before ops had authors, or a is admin. An id another member made is never
// a device's: it would hand it someone else's write (a job started on
// another moment, a forged reading). An admin may be answered with
// anything (the app's own engine re-mints its admin token under a new name
// when its settings lose it, and its outbox then repeats the old token's
// writes).
func (a Actor) mayAnswer(owner string) bool {
	return a.Admin || owner == "" || owner == a.member()
}

// notYours is the error of a device token refused a change to what
// another member made.
func notYours(what, id string) error {
	return api.Errorf(api.CodeForbidden, "%s %s was added by another family member; only they, or the engine's owner with an admin token, may change it", what, id)
}
