package app

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestEventKindsMirrored checks that frontend/src/events.ts, which mirrors
// the events' Go structs for the UI, names every kind the Go side sends:
// the outbox's EventKind constants, its steps, CaptureEvent's and
// MomentEvent's kinds, and the states of Dad's writes (their kinds are
// generated into codes.ts: TestCodesTS).
func TestEventKindsMirrored(t *testing.T) {
	ts, err := os.ReadFile(filepath.Join("..", "frontend", "src", "events.ts"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		union, file string
		match       func(name, typ string) bool
	}{
		{"OutboxKind", "../outbox/events.go", func(_, typ string) bool { return typ == "EventKind" }},
		{"StepName", "../outbox/entry.go", func(name, _ string) bool { return strings.HasPrefix(name, "Step") }},
		{"CaptureKind", "views.go", func(name, _ string) bool { return strings.HasPrefix(name, "CaptureKind") }},
		{"MomentKind", "watch.go", func(name, _ string) bool { return strings.HasPrefix(name, "MomentKind") }},
		{"WriteState", "views.go", func(name, _ string) bool { return strings.HasPrefix(name, "WriteState") }},
	} {
		want := goConstants(t, c.file, c.match)
		got := tsUnion(t, string(ts), c.union)
		slices.Sort(want)
		slices.Sort(got)
		if len(want) == 0 || !slices.Equal(got, want) {
			t.Errorf("events.ts %s = %q; the Go constants of %s are %q", c.union, got, c.file, want)
		}
	}
}

// goConstants returns the string values of the constants of file that match.
func goConstants(t *testing.T, file string, match func(name, typ string) bool) []string {
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			vs := s.(*ast.ValueSpec)
			typ := ""
			if id, ok := vs.Type.(*ast.Ident); ok {
				typ = id.Name
			}
			for i, n := range vs.Names {
				if i >= len(vs.Values) || !match(n.Name, typ) {
					continue
				}
				if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
					v, _ := strconv.Unquote(lit.Value)
					out = append(out, v)
				}
			}
		}
	}
	return out
}

// tsUnion returns the members of `export type NAME = 'a' | 'b';`.
func tsUnion(t *testing.T, src, name string) []string {
	m := regexp.MustCompile(`export type ` + name + ` = ([^;]+);`).FindStringSubmatch(src)
	if m == nil {
		t.Fatalf("events.ts has no union %s", name)
	}
	var out []string
	for _, q := range regexp.MustCompile(`'([^']*)'`).FindAllStringSubmatch(m[1], -1) {
		out = append(out, q[1])
	}
	return out
}
