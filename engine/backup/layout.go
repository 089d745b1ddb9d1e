package backup

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Names of the copy's objects (see doc.go).
const (
	ManifestName = "spark-backup.json"
	mediaPrefix  = "media/"
	logPrefix    = "log/"
	segSuffix    = ".seg"
	// Format is the version of the copy's layout this code writes: 2, an
	// encrypted copy. It reads format 1 too (plain, from before), and
	// keeps shipping to a copy of format 1 as it is.
	Format = 2
	// formatPlain is the format of a plain copy.
	formatPlain = 1
	// maxManifest bounds the manifest read: it is a few hundred bytes.
	maxManifest = 64 << 10
)

// mediaName is the object of the blob with that SHA-256 (lower-case hex).
func mediaName(sha string) string { return mediaPrefix + sha }

// segName is the object of the segment of the records first to last.
func segName(first, last uint64) string {
	return fmt.Sprintf("%s%020d-%020d%s", logPrefix, first, last, segSuffix)
}

// parseSeg reads the seqs from a segment's name.
func parseSeg(name string) (first, last uint64, ok bool) {
	s, found := strings.CutPrefix(name, logPrefix)
	if !found {
		return 0, 0, false
	}
	if s, found = strings.CutSuffix(s, segSuffix); !found {
		return 0, 0, false
	}
	a, b, found := strings.Cut(s, "-")
	if !found || len(a) != 20 || len(b) != 20 {
		return 0, 0, false
	}
	first, err1 := strconv.ParseUint(a, 10, 64)
	last, err2 := strconv.ParseUint(b, 10, 64)
	if err1 != nil || err2 != nil || first == 0 || last < first {
		return 0, 0, false
	}
	return first, last, true
}

// Manifest is the copy's one small description, written once when the
// first segment is shipped and never changed.
type Manifest struct {
	Format int `json:"format"`
	// FirstRecordSHA256 is the SHA-256 of the log's first record's bytes:
	// it tells one log's history from another's, so a folder that is not
	// the one the copy was made of is never shipped on top of it.
	FirstRecordSHA256 string `json:"first_record_sha256"`
	// EngineID is the engine id the folder had then (engine-id.json), if
	// any; for people.
	EngineID string `json:"engine_id,omitempty"`
	// Encryption is how the objects are encrypted: Encryption ("age-x25519")
	// in format 2; none in format 1.
	Encryption string `json:"encryption,omitempty"`
	// Recipient is the public half of the copy's key (age1...), the one
	// every object is encrypted to: it tells which key reads the copy.
	Recipient string `json:"recipient,omitempty"`
}

// encrypted reports whether the copy's objects are encrypted.
func (m *Manifest) encrypted() bool { return m.Format >= Format }

// ErrNoCopy is returned by a restore from a target that holds no copy.
var ErrNoCopy = errors.New("backup: the target holds no Spark copy (no " + ManifestName + ")")

// readManifest reads the target's manifest, ErrNoCopy if it has none.
func readManifest(ctx context.Context, t Target) (*Manifest, error) {
	rc, err := t.Get(ctx, ManifestName)
	if errors.Is(err, ErrNotFound) {
		return nil, fmt.Errorf("%w in %s", ErrNoCopy, t)
	}
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, maxManifest))
	if err != nil {
		return nil, fmt.Errorf("backup: read %s: %w", ManifestName, err)
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("backup: %s in %s is damaged: %w", ManifestName, t, err)
	}
	switch {
	case m.Format > Format || m.Format < formatPlain:
		return nil, fmt.Errorf("backup: the copy in %s has format %d, this Spark reads formats %d to %d; use a newer spark-engine", t, m.Format, formatPlain, Format)
	case m.Format == formatPlain && (m.Encryption != "" || m.Recipient != ""):
		return nil, fmt.Errorf("backup: %s in %s is damaged: format %d names an encryption", ManifestName, t, m.Format)
	case m.encrypted() && (m.Encryption != Encryption || !strings.HasPrefix(m.Recipient, "age1")):
		return nil, fmt.Errorf("backup: %s in %s names the encryption %q to %q; this Spark knows only %q to an age1... recipient", ManifestName, t, m.Encryption, m.Recipient, Encryption)
	}
	return &m, nil
}

// writeManifest puts m, create-only.
func writeManifest(ctx context.Context, t Target, m *Manifest) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	return t.Put(ctx, ManifestName, strings.NewReader(string(b)), int64(len(b)), sha256.Sum256(b))
}
