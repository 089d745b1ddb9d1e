package main

import (
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/sparkfamily/spark/engine"
	"github.com/sparkfamily/spark/engine/auth"
)

func tokenCmd(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usagef("token needs a subcommand: add NAME, list or revoke NAME")
	}
	sub, rest := args[0], args[1:]
	var synopsis string
	switch sub {
	case "add":
		synopsis = "token add NAME [--member MEMBER] [--scope device|admin] [--address URL] [--data DIR]"
	case "revoke":
		synopsis = "token revoke NAME [--data DIR]"
	case "list":
		synopsis = "token list [--data DIR]"
	default:
		return usagef("unknown token subcommand %q; use add NAME, list or revoke NAME", sub)
	}
	fs := newFlagSet("token "+sub, stderr, synopsis)
	data := dataFlag(fs)
	var address, scope, member *string
	if sub == "add" {
		member = fs.String("member", "", "the family member the token belongs to (e.g. dad for dad-laptop and dad-desktop): every token of one member may change what any of them added; NAME when not given")
		scope = fs.String("scope", string(auth.ScopeDevice), "what the token may do: device (a family member's computer: capture and read, change and delete its member's moments, keep phrases and remove its member's, ask for readings, import readings onto its member's moments) or admin (everything, to anyone's moments: keep one for whoever runs the engine)")
		address = fs.String("address", "", "the engine's address as clients reach it (e.g. https://spark.example.org): also print the connection text, address#token, that Spark's Settings take in one field")
	}
	pos, err := parseArgs(fs, rest)
	if err != nil {
		return err
	}
	dir, err := dataDir(*data)
	if err != nil {
		return err
	}
	if sub == "list" {
		if len(pos) != 0 {
			return usagef("token list takes no arguments, got %q", pos)
		}
	} else if len(pos) != 1 {
		return usagef("token %s takes exactly one NAME, got %d arguments", sub, len(pos))
	}

	var tokenScope auth.Scope
	if scope != nil {
		if tokenScope, err = auth.ParseScope(*scope); err != nil {
			return usagef("--scope %q is not a scope; use device (a family member's computer) or admin (whoever runs the engine)", *scope)
		}
	}
	tokenMember := ""
	if member != nil {
		tokenMember = *member
		if tokenMember == "" {
			tokenMember = pos[0]
		} else if err := auth.CheckMember(tokenMember); err != nil {
			return usagef("--member %q is not a member's name: %v", *member, err)
		}
	}
	if address != nil && *address != "" {
		if u, err := url.Parse(*address); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Fragment != "" {
			return usagef("--address %q is not an engine address; it looks like https://spark.example.org or http://192.168.1.20:8787", *address)
		}
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create the data directory: %w", err)
	}
	store, err := auth.Open(filepath.Join(dir, engine.TokensFile))
	if err != nil {
		return fmt.Errorf("open the token store: %w", err)
	}
	switch sub {
	case "add":
		token, err := store.AddMember(pos[0], tokenMember, tokenScope)
		if err != nil {
			return fmt.Errorf("add a token for %q: %w", pos[0], err)
		}
		// The token alone on stdout, so that scripts can capture it; the
		// advice goes to stderr.
		fmt.Fprintln(stdout, token)
		fmt.Fprintf(stderr, "Added a %s token %q for the member %q. It is shown only once; give it to that client (Authorization: Bearer <token>).\n", tokenScope, pos[0], tokenMember)
		if *address != "" {
			fmt.Fprintf(stderr, "Connection text for Spark (Settings, \"Connect to a family engine\"), to send privately:\n%s#%s\n", strings.TrimRight(*address, "/"), token)
		}
	case "list":
		tokens, err := store.List()
		if err != nil {
			return fmt.Errorf("list tokens: %w", err)
		}
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tMEMBER\tSCOPE\tCREATED")
		for _, t := range tokens {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", t.Name, t.Member, t.Scope, t.CreatedAt.UTC().Format(time.RFC3339))
		}
		tw.Flush()
	case "revoke":
		ok, err := store.Revoke(pos[0])
		if err != nil {
			return fmt.Errorf("revoke %q: %w", pos[0], err)
		}
		if !ok {
			return fmt.Errorf("there is no token named %q; see spark-engine token list", pos[0])
		}
		fmt.Fprintf(stderr, "Revoked the token of %q.\n", pos[0])
	}
	return nil
}
