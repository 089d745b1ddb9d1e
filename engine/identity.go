package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/oklog/ulid/v2"

	"github.com/sparkfamily/spark/engine/api"
	"github.com/sparkfamily/spark/internal/atomicfile"
)

// IdentityFile names the file in the data directory that holds the engine's
// id ([extension], reported by GET /v1/health as engine_id). A replica of an
// engine remembers the id, so that it never mixes two engines' logs: a
// wiped or replaced engine folder gets a new id.
const IdentityFile = "engine-id.json"

// identityVersion is the version of IdentityFile's format.
const identityVersion = 1

// identityJSON is IdentityFile's format.
type identityJSON struct {
	Version int    `json:"version"`
	ID      string `json:"id"`
}

// identity is the engine's id, read from IdentityFile or minted into it on
// first use.
type identity struct {
	mu sync.Mutex
	id string
}

// ID returns the engine's id: a ULID kept in DIR/engine-id.json, created on
// the first call for a folder that has none.
func (e *Engine) ID() (string, error) {
	e.ident.mu.Lock()
	defer e.ident.mu.Unlock()
	if e.ident.id != "" {
		return e.ident.id, nil
	}
	id, err := loadIdentity(e.dir)
	if err != nil {
		return "", err
	}
	e.ident.id = id
	return id, nil
}

// loadIdentity reads dir's engine id, minting and saving one if the folder
// has none.
func loadIdentity(dir string) (string, error) {
	path := filepath.Join(dir, IdentityFile)
	b, err := atomicfile.ReadFile(path)
	switch {
	case err == nil:
		var f identityJSON
		if err := json.Unmarshal(b, &f); err != nil {
			return "", fmt.Errorf("engine: read the engine id in %s: %w", path, err)
		}
		if f.Version != identityVersion {
			return "", fmt.Errorf("engine: %s has format version %d but this engine reads version %d; use a newer engine", path, f.Version, identityVersion)
		}
		if _, err := api.ParseULID(f.ID); err != nil {
			return "", fmt.Errorf("engine: %s holds %q, which is not an engine id (a ULID); remove the file to give the engine a new id", path, f.ID)
		}
		return f.ID, nil
	case errors.Is(err, os.ErrNotExist):
		id := ulid.Make().String()
		b, err := json.Marshal(identityJSON{Version: identityVersion, ID: id})
		if err != nil {
			return "", err
		}
		if err := atomicfile.WriteFile(path, append(b, '\n'), 0o600); err != nil {
			return "", fmt.Errorf("engine: save the engine id: %w", err)
		}
		return id, nil
	default:
		return "", fmt.Errorf("engine: read the engine id: %w", err)
	}
}
