package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/sparkfamily/spark/engine/pippa"
	"github.com/sparkfamily/spark/internal/atomicfile"
)

// ErrBadSeat is returned by SetSeats for a seat that cannot be asked (no
// usable URL, no model).
var ErrBadSeat = errors.New("engine: bad seat")

// seatsFile is the JSON of DIR/engine.json; a seat is
// {"name", "url", "model", "key", "timeout"} with the timeout a Go duration
// ("90s").
type seatsFile struct {
	Seats []pippa.Config `json:"seats"`
}

// readSeatsFile reads the seats of engine.json; a missing file has none.
func readSeatsFile(path string) ([]pippa.Config, error) {
	b, err := atomicfile.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read seats: %w", err)
	}
	var f seatsFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("read seats: %s is not a valid seats file (%v); fix or remove it", path, err)
	}
	for i, c := range f.Seats {
		if err := c.Check(); err != nil {
			return nil, fmt.Errorf("read seats: %s: seat %d: %w", path, i, err)
		}
	}
	return f.Seats, nil
}

// writeSeatsFile replaces engine.json atomically.
func writeSeatsFile(path string, seats []pippa.Config) error {
	b, err := json.MarshalIndent(seatsFile{Seats: seats}, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, append(b, '\n'), 0o600)
}

// effectiveSeats lists the seats in order: the environment's, Config.Seats,
// then engine.json's. A seat without a name is named after its model; a seat whose
// name is already taken is left out with a warning.
func (e *Engine) effectiveSeats(fileSeats []pippa.Config) []pippa.Config {
	var all []pippa.Config
	if env, ok := pippa.ConfigFromEnv(); ok {
		all = append(all, env)
	}
	all = append(all, e.cfg.Seats...)
	all = append(all, fileSeats...)
	seen := make(map[string]bool)
	out := make([]pippa.Config, 0, len(all))
	for i, s := range all {
		if s.Name == "" {
			s.Name = s.Model
		}
		if s.Name == "" {
			s.Name = fmt.Sprintf("seat%d", i)
		}
		if seen[s.Name] {
			e.logger.Warn("engine: two seats have one name; the later one is left out", "seat", s.Name)
			continue
		}
		seen[s.Name] = true
		out = append(out, s)
	}
	return out
}

// Seats returns the seats in use, in order: the environment's seat
// (SPARK_BRAIN_*), Config.Seats, then those set with SetSeats.
func (e *Engine) Seats() []pippa.Config {
	e.run.mu.Lock()
	defer e.run.mu.Unlock()
	out := make([]pippa.Config, len(e.run.seats))
	for i, s := range e.run.seats {
		out[i] = s.cfg
	}
	return out
}

// SetSeats replaces the seats of DIR/engine.json with seats (persisted
// atomically) and wakes the turns waiting for a seat. The environment's
// seat and Config.Seats stay first.
func (e *Engine) SetSeats(ctx context.Context, seats []pippa.Config) error {
	for _, s := range seats {
		if err := s.Check(); err != nil {
			return fmt.Errorf("%w: %v", ErrBadSeat, err)
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	seats = append([]pippa.Config(nil), seats...)
	if err := writeSeatsFile(filepath.Join(e.dir, ConfigFile), seats); err != nil {
		return fmt.Errorf("engine: save seats: %w", err)
	}
	e.run.setSeats(e.effectiveSeats(seats), seats)
	return nil
}
