// Package view is Spark desktop's read model: what the window shows of
// the moments, their readings, the phrases kept and Dad's writes, built
// from what the engine answers (the engine on this computer, read over
// loopback) or from the replica of the family engine kept on this
// computer (Corpus), plus the overlay of what Dad did that the engine does
// not have yet (Unsent). Reads puts them together for each read the
// window makes: a page of Moments, a moment, Recently deleted, a reading,
// the phrases kept.
//
// Its invariants:
//
//   - It only reads. Corpus has no write; Unsent is handed the outbox's
//     writes already read, and Reads the functions that read the rest of
//     the outbox; the overlay changes only the views it builds, never
//     the outbox, the replica or the engine. Writes go through app's
//     bindings to the outbox. The one bookkeeping a read does is the
//     replica cache's own: Corpus.LocalMedia marks a small copy viewed,
//     for the order the cache makes room in.
//   - The overlay is keyed by the outbox's kinds of write
//     (outbox.WriteKinds): one row per kind, no row for a kind the
//     outbox does not know (TestOverlays_EveryKind).
//   - Every JSON field the window receives is snake_case, like the
//     engine's contract, and every time is an RFC 3339 string in UTC
//     ("" for none), so the generated TypeScript types stay exact.
//   - It names no family member it was not told of: the zero Viewer
//     names no one.
//
// Package app keeps the Wails bindings, which return these views, and the
// app's lifetime: which engine and replica a read uses (its state, from
// which it builds a Reads), reading the outbox, what a write not sent yet
// waits for (Unsent.WaitsOf), and serving the media at the URLs the views
// name (MediaURL, OutboxCopyURL).
package view
