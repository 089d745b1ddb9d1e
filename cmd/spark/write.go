package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/oklog/ulid/v2"

	"github.com/sparkfamily/spark/app/replica"
	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/outbox"
)

// The writes the window makes, from the command line: each is made with
// its ids minted now, stored in the outbox synced to disk before the
// command answers, with no network, and sent by 'spark drain' (or the app),
// exactly once, in the order they were made.

// cmdNote writes a note: its words are the arguments, joined by spaces.
// The new moment's id is printed alone on stdout, for scripts.
func cmdNote(ctx context.Context, g *globals, args []string, e env) error {
	pos, err := writeArgs(g, "note", args)
	if err != nil {
		return err
	}
	text := strings.Join(pos, " ")
	if strings.TrimSpace(text) == "" {
		return fmt.Errorf("%w: write the note's text: spark note TEXT", errUsage)
	}
	id := ulid.Make().String()
	if _, err := addWrite(ctx, g, outbox.NewNote(id, text)); err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, id)
	fmt.Fprintln(e.stderr, "the note is kept on this computer; 'spark drain' sends it")
	return nil
}

// cmdCaption sets a moment's caption (the rest of the arguments, joined by
// spaces; an empty one clears it).
func cmdCaption(ctx context.Context, g *globals, args []string, e env) error {
	pos, err := writeArgs(g, "caption", args)
	if err != nil {
		return err
	}
	if len(pos) < 2 {
		return fmt.Errorf("%w: name the moment and write its caption: spark caption MOMENT_ID TEXT", errUsage)
	}
	id, err := api.ParseULID(pos[0])
	if err != nil {
		return fmt.Errorf("the moment's id: %w", err)
	}
	base, err := shownCaption(ctx, g, id)
	if err != nil {
		return err
	}
	w, err := addWrite(ctx, g, outbox.NewCaption(id, strings.Join(pos[1:], " "), base))
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "the caption is kept on this computer as %s; 'spark drain' sends it\n", w.ID)
	return nil
}

// shownCaption is the caption 'spark moments' shows for moment id, from
// this computer's copy: what a new caption is written from. nil when the
// copy does not hold the moment (the engine then simply replaces its
// caption).
func shownCaption(ctx context.Context, g *globals, id string) (*string, error) {
	r, err := g.openReplica(ctx)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	m, err := r.Moment(ctx, id)
	switch {
	case errors.Is(err, replica.ErrNotFound):
		return nil, nil
	case err != nil:
		return nil, err
	}
	return &m.Caption, nil
}

// cmdDelete deletes a moment.
func cmdDelete(ctx context.Context, g *globals, args []string, e env) error {
	return momentWrite(ctx, g, args, e, "delete", outbox.NewDelete)
}

// cmdRestore brings a deleted moment back.
func cmdRestore(ctx context.Context, g *globals, args []string, e env) error {
	return momentWrite(ctx, g, args, e, "restore", outbox.NewRestore)
}

// momentWrite stores the write that write makes of the one moment named.
func momentWrite(ctx context.Context, g *globals, args []string, e env, name string, write func(momentID string) outbox.Write) error {
	pos, err := writeArgs(g, name, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return fmt.Errorf("%w: name the moment to %s, and only it: spark %s MOMENT_ID", errUsage, name, name)
	}
	id, err := api.ParseULID(pos[0])
	if err != nil {
		return fmt.Errorf("the moment's id: %w", err)
	}
	w, err := addWrite(ctx, g, write(id))
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "the %s is kept on this computer as %s; 'spark drain' sends it\n", name, w.ID)
	return nil
}

// writeArgs parses a write command's flags (the global ones) and returns
// its positional arguments.
func writeArgs(g *globals, name string, args []string) ([]string, error) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	g.register(fs)
	return parseInterleaved(fs, args)
}

// addWrite stores w in the outbox, synced, and closes it.
func addWrite(ctx context.Context, g *globals, w outbox.Write) (*outbox.Write, error) {
	o, err := g.openOutbox(ctx, outbox.Options{})
	if err != nil {
		return nil, err
	}
	defer o.Close()
	return o.AddWrite(ctx, w)
}
