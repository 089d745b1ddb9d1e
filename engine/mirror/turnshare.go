package mirror

import "context"

// A moment's turns are counted by the family member who started each: the
// owner of its request id (requests.owner, the author of the turn.start
// that first used it). A turn with no author, one the engine started
// itself or one logged before ops had authors, is the moment's own
// member's. The engine bounds each member's share of a moment apart, so
// that another member's readings never use up the owner's room.
const sqlTurnsBy = `SELECT count(*) FROM turns t
	JOIN moments mo ON mo.id = t.moment_id
	LEFT JOIN requests r ON r.id = t.request_id AND r.turn_id = t.id
	WHERE t.moment_id = ?1 AND coalesce(nullif(r.owner, ''), mo.owner) = ?2`

// TurnsBy returns how many of moment momentID's turns member started (0
// for an unknown moment): those whose request id member first used, and,
// when member is the moment's own, those with no author.
func (m *DB) TurnsBy(ctx context.Context, momentID, member string) (int, error) {
	var n int
	if err := m.queryRow(ctx, sqlTurnsBy, momentID, member).Scan(&n); err != nil {
		return 0, m.wrap("count a member's turns", err)
	}
	return n, nil
}
