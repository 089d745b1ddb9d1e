package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"

	"github.com/sparkfamily/spark/engine/mirror"
	"github.com/sparkfamily/spark/engine/oplog"
	"github.com/sparkfamily/spark/engine/vfs"
)

// errScanned stops a Scan past the last seq asked for.
var errScanned = errors.New("scanned")

// logMembers reads, for a mirror's migration (mirror.Options.Members),
// the member of each op at seqs from the log at path, opened read-only
// beside the mirror: the migration runs before the engine opens its log,
// and changes nothing in it.
func logMembers(path string, fsys vfs.FS) mirror.MembersFunc {
	return func(ctx context.Context, seqs []uint64) (map[uint64]string, error) {
		if len(seqs) == 0 {
			return map[uint64]string{}, nil
		}
		l, err := oplog.Open(path, oplog.Options{ReadOnly: true, FS: fsys, Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			return nil, err
		}
		defer l.Close()
		want := make(map[uint64]bool, len(seqs))
		for _, s := range seqs {
			want[s] = true
		}
		first, last := slices.Min(seqs), slices.Max(seqs)
		out := make(map[uint64]string, len(seqs))
		err = l.Scan(ctx, first-1, func(r oplog.Record) error {
			if want[r.Seq] {
				out[r.Seq] = r.MemberOf()
			}
			if r.Seq >= last {
				return errScanned
			}
			return nil
		})
		if err != nil && !errors.Is(err, errScanned) {
			return nil, fmt.Errorf("read %s: %w", path, err)
		}
		return out, nil
	}
}
