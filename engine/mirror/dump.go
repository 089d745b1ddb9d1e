package mirror

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// Tables are the mirror's tables, in the order Dump and Diff visit them.
// Every table's first column is its text primary key.
var Tables = []string{"meta", "moments", "media", "turns", "phrases", "recalls", "jobs", "requests", "alternatives", "words", "media_gone"}

// keyColumns is how many leading columns make a table's key, where more
// than one: an alternative is named within its moment.
var keyColumns = map[string]int{"alternatives": 2}

// rowCursor walks one table in primary-key order, rendering each row as text.
type rowCursor struct {
	rows *sql.Rows
	keys int // leading columns that make the key
	vals []any
	key  string
	row  string
	done bool
}

func (m *DB) cursor(ctx context.Context, table string) (*rowCursor, error) {
	m.awaitFold(ctx)
	keys := max(keyColumns[table], 1)
	order := "1"
	if keys == 2 {
		order = "1, 2"
	}
	rows, err := m.r.QueryContext(ctx, "SELECT * FROM "+table+" ORDER BY "+order)
	if err != nil {
		return nil, m.wrap("dump "+table, err)
	}
	cols, err := rows.Columns()
	if err != nil {
		rows.Close()
		return nil, m.wrap("dump "+table, err)
	}
	c := &rowCursor{rows: rows, vals: make([]any, len(cols)), keys: keys}
	return c, c.next()
}

func (c *rowCursor) next() error {
	if !c.rows.Next() {
		c.done = true
		return c.rows.Err()
	}
	ptrs := make([]any, len(c.vals))
	for i := range c.vals {
		ptrs[i] = &c.vals[i]
	}
	if err := c.rows.Scan(ptrs...); err != nil {
		return err
	}
	var b strings.Builder
	for i, v := range c.vals {
		if i > 0 {
			b.WriteString(" | ")
		}
		switch v := v.(type) {
		case nil:
			b.WriteString("NULL")
		case string:
			fmt.Fprintf(&b, "%q", v)
		case []byte:
			fmt.Fprintf(&b, "%q", v)
		default:
			fmt.Fprintf(&b, "%v", v)
		}
	}
	c.key = fmt.Sprint(c.vals[0])
	if c.keys == 2 {
		c.key += "/" + fmt.Sprint(c.vals[1])
	}
	c.row = b.String()
	return nil
}

// Dump returns every row of every table rendered as text, in primary-key
// order; tests compare two mirrors' dumps.
func (m *DB) Dump(ctx context.Context) (map[string][]string, error) {
	out := make(map[string][]string, len(Tables))
	for _, table := range Tables {
		c, err := m.cursor(ctx, table)
		if err != nil {
			return nil, err
		}
		rows := []string{}
		for !c.done {
			rows = append(rows, c.row)
			if err := c.next(); err != nil {
				c.rows.Close()
				return nil, m.wrap("dump "+table, err)
			}
		}
		c.rows.Close()
		out[table] = rows
	}
	return out, nil
}

// Diff compares mirrors a and b table by table, walking both in key order
// (constant memory), and returns the differences in words, at most max per
// table. No differences means b holds exactly what a holds.
func Diff(ctx context.Context, a, b *DB, max int) ([]string, error) {
	var diffs []string
	for _, table := range Tables {
		ca, err := a.cursor(ctx, table)
		if err != nil {
			return nil, err
		}
		cb, err := b.cursor(ctx, table)
		if err != nil {
			ca.rows.Close()
			return nil, err
		}
		n, err := diffTable(table, ca, cb, max, &diffs)
		ca.rows.Close()
		cb.rows.Close()
		if err != nil {
			return nil, fmt.Errorf("compare table %s: %w", table, err)
		}
		if n > max {
			diffs = append(diffs, fmt.Sprintf("%s: %d more differences", table, n-max))
		}
	}
	return diffs, nil
}

func diffTable(table string, ca, cb *rowCursor, max int, diffs *[]string) (int, error) {
	n := 0
	report := func(format string, args ...any) {
		n++
		if n <= max {
			*diffs = append(*diffs, table+": "+fmt.Sprintf(format, args...))
		}
	}
	for !ca.done || !cb.done {
		switch {
		case cb.done || !ca.done && ca.key < cb.key:
			report("only in %s: %s", "the first", ca.row)
			if err := ca.next(); err != nil {
				return n, err
			}
		case ca.done || cb.key < ca.key:
			report("only in %s: %s", "the second", cb.row)
			if err := cb.next(); err != nil {
				return n, err
			}
		default:
			if ca.row != cb.row {
				report("row %s differs:\n\t%s\n\t%s", ca.key, ca.row, cb.row)
			}
			if err := ca.next(); err != nil {
				return n, err
			}
			if err := cb.next(); err != nil {
				return n, err
			}
		}
	}
	return n, nil
}
