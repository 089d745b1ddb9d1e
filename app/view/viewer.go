package view

import "strings"

// The window names the family member who added a moment or kept a phrase
// (Moment.AddedBy, Phrase.KeptBy) by the member's name, never a token's,
// and only when it is someone else: Dad reading "Added by dad" on his own
// moments would be noise. Until Spark knows whom the engine takes its
// token for (app learns it, GET /v1/me), and with an engine too old to
// say, the window names no one rather than guess; with the engine on this
// computer it names no one either (all of it is this computer's, made
// under tokens Spark itself mints).

// Viewer is whom the window shows things to: the family member Spark's
// token acts for, and whether that token is an admin's (which may remove
// anyone's phrase). The zero Viewer knows no one.
type Viewer struct {
	Member string
	Admin  bool
}

// AppTokenName names Spark's own token in the engine on this computer:
// the engine's token store holds it as AppTokenName-<unix time>.
const AppTokenName = "spark-desktop"

// Other is the name the window gives the member who added or kept
// something: member, when the viewer is known and member is someone else;
// "" for the viewer's own, for what was made before members, and when the
// viewer is unknown.
func (v Viewer) Other(member string) string {
	if v.Member == "" || member == "" || member == v.Member || IsAppToken(member) {
		return ""
	}
	return member
}

// IsAppToken reports whether member is the name the engine on a
// computer gave Spark's own token (AppTokenName-<unix time>), which is
// that token's member too. A Move sends what such an engine wrote for it
// as the target key's member (push.Options.PushersOwn), but a push by
// hand with an admin key keeps it, so a family engine may hold moments of
// "spark-desktop-1733493000": a token's name, not a person's, and not one
// the window can tell whose it was. It names no one for them.
func IsAppToken(member string) bool {
	digits, ok := strings.CutPrefix(member, AppTokenName+"-")
	if !ok || digits == "" {
		return false
	}
	for _, r := range digits {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
