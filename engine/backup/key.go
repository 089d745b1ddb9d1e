package backup

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"filippo.io/age"

	"github.com/sparkfamily/spark/internal/atomicfile"
)

// KeyFile names the file in the data folder that holds the key of the
// folder's off-site copy.
//
// It is an age identity file, as age-keygen writes one, and so is read by
// the stock age tool as it is (age -d -i backup.key):
//
//	# Spark: the key to the off-site copy of this data folder.
//	# created: 2026-12-06T23:10:00Z
//	# public key: age1...
//	AGE-SECRET-KEY-1...
//
// Lines starting with # are comments; the one other line is the secret
// key, the Bech32 encoding of an X25519 scalar (age's own versioned
// encoding: a later kind of key would have another prefix). Spark reads
// the "# created:" line for the date the recovery text shows, and nothing
// else of the comments.
const KeyFile = "backup.key"

// keyPrefix starts the line of an age X25519 secret key.
const keyPrefix = "AGE-SECRET-KEY-1"

// maxKeyFile bounds what ParseKey reads: a key file is a few hundred
// bytes, a recovery text a few more.
const maxKeyFile = 64 << 10

// ErrNoKey is returned by LoadKey for a data folder that has no KeyFile.
var ErrNoKey = errors.New("backup: the data folder has no key for its off-site copy (" + KeyFile + ")")

// Key is the key of an off-site copy: an age X25519 identity. The copy's
// objects are encrypted to its public half (Recipient), which the
// manifest names; only the secret half reads them back.
type Key struct {
	id      *age.X25519Identity
	created time.Time // when it was made, if known
}

// LoadKey reads the key of the data folder dir, ErrNoKey if it has none.
func LoadKey(dir string) (*Key, error) {
	path := filepath.Join(dir, KeyFile)
	b, err := atomicfile.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s", ErrNoKey, path)
	}
	if err != nil {
		return nil, fmt.Errorf("backup: read the key: %w", err)
	}
	k, err := ParseKey(strings.NewReader(string(b)))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return k, nil
}

// LoadOrCreateKey reads the key of the data folder dir, or makes one and
// writes it there (0600, atomically) when the folder has none; created
// tells which, so that the caller can say, once, that a copy of the key
// must be kept elsewhere.
func LoadOrCreateKey(dir string) (key *Key, created bool, err error) {
	k, err := LoadKey(dir)
	if !errors.Is(err, ErrNoKey) {
		return k, false, err
	}
	id, err := age.GenerateX25519Identity()
	if err != nil {
		return nil, false, fmt.Errorf("backup: make a key: %w", err)
	}
	k = &Key{id: id, created: time.Now().UTC().Truncate(time.Second)}
	if err := writeKey(dir, k); err != nil {
		return nil, false, err
	}
	return k, true, nil
}

// writeKey writes k as dir's KeyFile.
func writeKey(dir string, k *Key) error {
	created := k.created
	if created.IsZero() {
		created = time.Now().UTC().Truncate(time.Second)
	}
	text := fmt.Sprintf("# Spark: the key to the off-site copy of this data folder.\n# created: %s\n# public key: %s\n%s\n",
		created.Format(time.RFC3339), k.Recipient(), k.id.String())
	if err := atomicfile.WriteFile(filepath.Join(dir, KeyFile), []byte(text), 0o600); err != nil {
		return fmt.Errorf("backup: write the key: %w", err)
	}
	return nil
}

// ParseKey reads a key from a key file or a recovery text: the line that
// starts with AGE-SECRET-KEY-1 (spaces in it, as in a key written down in
// groups, are dropped; lower case is read as upper). Blank lines, lines
// starting with # and every other line are ignored; more than one key
// line is an error unless they are the same key.
func ParseKey(r io.Reader) (*Key, error) {
	var k *Key
	var created time.Time
	sc := bufio.NewScanner(io.LimitReader(r, maxKeyFile))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if c, ok := strings.CutPrefix(line, "# created:"); ok {
			if t, err := time.Parse(time.RFC3339, strings.TrimSpace(c)); err == nil {
				created = t
			}
			continue
		}
		if line == "" || line[0] == '#' || !strings.HasPrefix(strings.ToUpper(line), keyPrefix) {
			continue
		}
		s := strings.ToUpper(strings.Join(strings.Fields(line), ""))
		id, err := age.ParseX25519Identity(s)
		if err != nil {
			// age's error names no key material.
			return nil, fmt.Errorf("backup: the key line (%s...) is not a whole key, or was mistyped: %w", keyPrefix, err)
		}
		if k != nil && k.id.String() != id.String() {
			return nil, errors.New("backup: the text holds two different keys; give a file with one")
		}
		k = &Key{id: id}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("backup: read the key: %w", err)
	}
	if k == nil {
		return nil, fmt.Errorf("backup: no key in the text: it has no line starting with %s", keyPrefix)
	}
	k.created = created
	return k, nil
}

// Recipient is the key's public half (age1...), which the copy's
// manifest names: it tells which key a copy needs, and opens nothing.
func (k *Key) Recipient() string { return k.id.Recipient().String() }

// String is the key's public half: a Key printed by mistake shows
// nothing secret.
func (k *Key) String() string { return k.Recipient() }

// recoveryTitle starts every recovery text.
const recoveryTitle = "SPARK: THE KEY TO YOUR OFF-SITE COPY"

// RecoveryText is a text to print, or write down, and keep away from the
// computer: what the key is for, in plain words, and the key. Every line
// but the key's starts with #, so the text is also an age identity file
// (age -d -i recovery.txt reads the copy's objects), and ParseKey reads
// it back whole.
func (k *Key) RecoveryText() string {
	date := "Key made on " + k.created.Format("2 January 2006") + "."
	if k.created.IsZero() {
		date = "Printed on " + time.Now().Format("2 January 2006") + "."
	}
	var b strings.Builder
	line := func(s string) { b.WriteString(strings.TrimRight("# "+s, " ") + "\n") }
	line(recoveryTitle)
	line("")
	line("This is the key to your off-site copy. Without it nobody can read the")
	line("copy, not even you. Print it or write it down and keep it somewhere")
	line("other than this computer.")
	line("")
	line(date)
	line("The copy's public key, for reference (it only locks; it opens nothing):")
	line("  " + k.Recipient())
	line("")
	line("The key, on the next line, exactly (it is one line):")
	b.WriteString(k.id.String() + "\n")
	line("")
	line("The same key in groups of four, to write by hand or type back:")
	line("  " + groups(k.id.String()))
	line("")
	line("To restore the copy into a new folder:")
	line("  spark-engine restore --from WHERE_THE_COPY_IS --data NEW_FOLDER --key THIS_FILE")
	line("Without Spark, any object of the copy opens with the age tool")
	line("(https://age-encryption.org): age -d -i THIS_FILE OBJECT > OBJECT.plain")
	return b.String()
}

// Secret is the key itself, the one line (AGE-SECRET-KEY-1...) that opens
// the copy, for a recovery text made elsewhere (the window's, in words of
// its own). ParseKey reads any text that holds it.
func (k *Key) Secret() string { return k.id.String() }

// groups writes the key after its prefix in groups of four characters.
func groups(key string) string {
	rest := strings.TrimPrefix(key, keyPrefix)
	parts := []string{keyPrefix}
	for len(rest) > 4 {
		parts = append(parts, rest[:4])
		rest = rest[4:]
	}
	return strings.Join(append(parts, rest), " ")
}
